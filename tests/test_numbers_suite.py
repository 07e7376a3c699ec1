"""The generated numbers suite: determinism, shares per domain, and correct content."""

from __future__ import annotations

import ast
import datetime as dt
import ipaddress
import re
import uuid
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokbench.errors import InputError, TokbenchError
from tokbench.suites.numbers import DOMAINS, domain_shares, generate


@pytest.fixture(scope="module")
def docs():
    return generate()


def by_domain(docs, domain):
    return [d.text for d in docs if d.domain == domain]


def test_same_seed_same_documents(docs):
    again = generate(seed=0, count=1500)
    assert [d.text for d in again] == [d.text for d in docs]
    assert again == docs


def test_different_seed_different_documents(docs):
    other = generate(seed=1)
    assert [d.text for d in other] != [d.text for d in docs]
    # Not merely reordered: most integers differ.
    assert len(set(by_domain(other, "integers")) & set(by_domain(docs, "integers"))) < 10


def test_regression_values_for_seed_0(docs):
    first = {d.domain: d for d in reversed(docs)}
    assert first["integers"].id == "integers-0000"
    assert first["integers"].text == "8352696089689582369"
    assert first["separators"].text == "3,24,657"
    assert first["ip"].text == "2189::1488:5372:cc82:eedc"
    assert first["arithmetic"].text == "5^7=78125"
    assert first["fullwidth"].text == "ＴＥＬ ０５－７５３０－３７６０"
    assert first["sentences"].text == "Between 1979 and 2014, rents went up by 46%."
    assert docs[-1].id == "sentences-0099"


def test_every_domain_has_its_share(docs):
    assert len(docs) == 1500
    counts = Counter(d.domain for d in docs)
    assert list(counts) == list(DOMAINS)
    assert set(counts.values()) == {100}


def test_shares_of_uneven_count():
    shares = domain_shares(17)
    assert list(shares.values()) == [2, 2] + [1] * 13
    assert Counter(d.domain for d in generate(count=17)) == Counter(shares)


def test_ids_langs_and_align(docs):
    assert len({d.id for d in docs}) == len(docs)
    for d in docs:
        assert re.fullmatch(rf"{d.domain}-\d{{4}}", d.id)
        assert d.lang == ("eng_Latn" if d.domain == "sentences" else "zxx_Zyyy")
        assert d.align is None
        assert d.text and d.text == d.text.strip()


def test_integers_cover_1_to_20_digits(docs):
    ints = by_domain(docs, "integers")
    assert all(t.isascii() and t.isdigit() for t in ints)
    assert all(t == "0" or not t.startswith("0") for t in ints)
    lengths = Counter(len(t) for t in ints)
    assert sorted(lengths) == list(range(1, 21))
    assert set(lengths.values()) == {5}  # uniform over digit count


def _evaluate(expr: str) -> Fraction:
    """Evaluate + - * / ** on integers exactly; anything else is a test failure."""

    def ev(node: ast.AST) -> Fraction:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return Fraction(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.BinOp):
            left, right = ev(node.left), ev(node.right)
            ops = {ast.Add: lambda: left + right, ast.Sub: lambda: left - right,
                   ast.Mult: lambda: left * right, ast.Div: lambda: left / right,
                   ast.Pow: lambda: left ** int(right)}
            return ops[type(node.op)]()
        raise AssertionError(f"unexpected syntax in {expr!r}: {ast.dump(node)}")

    return ev(ast.parse(expr, mode="eval"))


def test_evaluator_itself():
    assert _evaluate("(9-3)/2") == 3
    assert _evaluate("2**10") == 1024
    assert _evaluate("7/2") == Fraction(7, 2)


def test_arithmetic_results_are_correct(docs):
    sums = by_domain(docs, "arithmetic")
    operators = Counter()
    for text in sums:
        left, right = text.rsplit("=", 1)
        operators.update(c for c in left if c in "+-×÷^/*(")
        expr = left.replace("×", "*").replace("÷", "/").replace("^", "**")
        assert _evaluate(expr) == int(right.strip()), text
    assert set(operators) == set("+-×÷^/*(")


def test_separator_styles(docs):
    seps = by_domain(docs, "separators")
    assert any("\u00a0" in t for t in seps)
    assert any("\u2009" in t for t in seps)
    assert any("\u202f" in t for t in seps)
    assert any(re.fullmatch(r"\d{1,3}('\d{3})+(\.\d\d)?", t) for t in seps)  # Swiss
    assert any(re.fullmatch(r"\d{1,3}(\.\d{3})+(,\d\d)?", t) for t in seps)  # German
    indian = [t for t in seps if re.fullmatch(r"\d{1,2}(,\d\d)+,\d{3}", t)]
    assert indian
    for t in seps:  # grouping never changes the digits' value: groups are 3 (or 2, Indian)
        groups = re.split(r"[,.'\u00a0\u2009\u202f ]", t)
        assert all(len(g) in (1, 2, 3) for g in groups), t


def test_dates_and_times_are_valid(docs):
    months = {name: k + 1 for k, name in enumerate(
        ["January", "February", "March", "April", "May", "June", "July", "August",
         "September", "October", "November", "December"])}
    checked = 0
    for text in by_domain(docs, "dates"):
        ymd = (re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)", text)
               or re.fullmatch(r"(\d{4})年(\d{1,2})月(\d{1,2})日", text))
        if ymd:
            dt.date(*map(int, ymd.groups()))
            checked += 1
        elif m := re.fullmatch(r"([A-Z][a-z]+) (\d{1,2}), (\d{4})", text):
            dt.date(int(m[3]), months[m[1]], int(m[2]))
            checked += 1
    assert checked >= 30
    times = by_domain(docs, "times")
    iso = [t for t in times if re.search(r"\dT\d", t)]
    assert any(t.endswith("Z") for t in iso) and any(re.search(r"[+-]\d\d:\d\d$", t) for t in iso)
    for text in iso:
        stamp = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
        assert stamp.tzinfo is not None
    assert any(re.fullmatch(r"\d{1,2}:\d\d [AP]M", t) for t in times)


def test_ip_hex_and_version_parse(docs):
    for text in by_domain(docs, "ip"):
        if "/" in text:
            ipaddress.ip_network(text)
        elif text.count(":") == 1:
            host, port = text.split(":")
            ipaddress.IPv4Address(host)
            assert 1 <= int(port) <= 65535
        else:
            ipaddress.ip_address(text)
    ips = by_domain(docs, "ip")
    assert any("::" in t for t in ips) and any(len(t) == 39 for t in ips)
    hexes = by_domain(docs, "hex")
    uuids = [t for t in hexes if len(t) == 36]
    assert uuids and all(uuid.UUID(t).version == 4 for t in uuids)
    assert any(re.fullmatch(r"[0-9a-f]{64}", t) for t in hexes)
    assert any(re.fullmatch(r"0x[0-9A-F]{8}", t) for t in hexes)
    assert any(re.fullmatch(r"v\d+\.\d+\.\d+-rc\.\d", t) for t in by_domain(docs, "version"))


def test_currency_symbols_and_fullwidth(docs):
    money = "".join(by_domain(docs, "currency"))
    for symbol in ("$", "€", "¥", "£", "₹", "₩", "CHF", "USD", "R$"):
        assert symbol in money
    for text in by_domain(docs, "fullwidth"):
        assert not re.search(r"[0-9]", text), text
        assert re.search("[０-９]", text), text
    assert any(t.startswith("￥") and "，" in t for t in by_domain(docs, "fullwidth"))


def test_sentences_read_forwards(docs):
    sentences = by_domain(docs, "sentences")
    assert len(set(sentences)) > 90
    for text in sentences:
        assert text[0].isupper() and text.endswith(".") and not text.endswith("..")
        if m := re.search(r"Between (\d+) and (\d+)", text):
            assert int(m[1]) < int(m[2])
        if m := re.search(r"expected (\d+) arguments but got (\d+)", text):
            assert m[1] != m[2]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(-(2**40), 2**40), count=st.integers(0, 120))
def test_any_seed_and_count(seed, count):
    docs = generate(seed=seed, count=count)
    assert len(docs) == count
    assert len({d.id for d in docs}) == count
    sizes = Counter(d.domain for d in docs)
    assert max(sizes.values(), default=0) - min(sizes.get(k, 0) for k in DOMAINS) <= 1
    assert [d.text for d in generate(seed=seed, count=count)] == [d.text for d in docs]


@pytest.mark.parametrize("kwargs", [{"count": -1}, {"seed": "zero"}, {"count": 2.5},
                                    {"seed": True}])
def test_bad_arguments_are_input_errors(kwargs):
    with pytest.raises(InputError, match="numbers suite") as info:
        generate(**kwargs)
    assert isinstance(info.value, TokbenchError)
