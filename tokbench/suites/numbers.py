"""The built-in numbers suite: numbers in the formats people and programs write them.

Tokenizers split digits very differently (single digits, runs of three, whole
merges), and that decides how well a model can do arithmetic or copy a phone
number. This module generates the suite deterministically from a seed: each
domain (integers, dates, IP addresses...) draws from its own ``random.Random``
seeded with ``(seed, domain)``, so a domain's documents depend only on the seed and
that domain's share of the count. No global state, clock or locale is used.
"""

from __future__ import annotations

import calendar
import ipaddress
import random
import re
import uuid
from collections.abc import Callable

from tokbench.errors import InputError
from tokbench.suites.model import Document

DOMAINS: tuple[str, ...] = (
    "integers", "decimals", "separators", "scientific", "percent", "currency",
    "dates", "times", "phone", "ip", "version", "hex", "arithmetic", "fullwidth",
    "sentences",
)
"""The domains, in the order their documents appear."""

SENTENCE_LANG = "eng_Latn"
NUMBER_LANG = "zxx_Zyyy"
MAX_INT_DIGITS = 20

_NBSP, _NNBSP, _THIN = "\u00a0", "\u202f", "\u2009"
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_FULLWIDTH = str.maketrans({c: chr(ord(c) + 0xFEE0) for c in "0123456789,.%-+:/()$"})


def _digits(rng: random.Random, n: int) -> str:
    """A random ``n``-digit natural number without a leading zero (``0`` allowed for n=1)."""
    if n == 1:
        return str(rng.randint(0, 9))
    return str(rng.randint(1, 9)) + "".join(str(rng.randint(0, 9)) for _ in range(n - 1))


def _group(digits: str, sep: str, indian: bool = False) -> str:
    """Insert ``sep`` between groups of three (Indian: last three, then twos)."""
    if not indian or len(digits) <= 3:
        head, groups = len(digits) % 3, []
        if head:
            groups.append(digits[:head])
        groups += [digits[i:i + 3] for i in range(head, len(digits), 3)]
        return sep.join(groups)
    rest, last = digits[:-3], digits[-3:]
    head, twos = len(rest) % 2, []
    if head:
        twos.append(rest[:head])
    twos += [rest[i:i + 2] for i in range(head, len(rest), 2)]
    return sep.join([*twos, last])


def _free(rng: random.Random, n: int) -> str:
    """``n`` random digits, leading zeros allowed (phone numbers, fractions)."""
    return "".join(str(rng.randint(0, 9)) for _ in range(n))


def _cents(rng: random.Random) -> str:
    return _free(rng, 2)


def _integer(rng: random.Random, i: int) -> str:
    # Digit counts cycle 1..20 over the style index, so each appears once per 20 documents.
    return _digits(rng, i % MAX_INT_DIGITS + 1)


def _decimal(rng: random.Random, i: int) -> str:
    whole = "0" if rng.random() < 0.3 else _digits(rng, rng.randint(1, 7))
    frac = _free(rng, rng.randint(1, 8))
    sign = "-" if rng.random() < 0.15 else ""
    style = i % 5
    if style == 0:
        return f"{sign}.{frac}"
    if style == 1:
        return f"{sign}{whole}.{frac[:2].ljust(2, '0')}"
    return f"{sign}{whole}.{frac}"


def _separated(rng: random.Random, i: int) -> str:
    digits = _digits(rng, rng.randint(4, 13))
    style = i % 8
    if style == 0:
        return _group(digits, ",") + (f".{_cents(rng)}" if rng.random() < 0.3 else "")
    if style == 1:
        return _group(digits, ".") + (f",{_cents(rng)}" if rng.random() < 0.3 else "")
    if style == 2:
        return _group(digits, _NBSP) + (f",{_cents(rng)}" if rng.random() < 0.3 else "")
    if style == 3:
        return _group(digits, _THIN)
    if style == 4:
        return _group(digits, _NNBSP) + (f",{_cents(rng)}" if rng.random() < 0.3 else "")
    if style == 5:
        return _group(digits, ",", indian=True)
    if style == 6:
        return _group(digits, "'") + (f".{_cents(rng)}" if rng.random() < 0.3 else "")
    return _group(digits, " ")


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _scientific(rng: random.Random, i: int) -> str:
    mantissa = f"{rng.randint(1, 9)}.{_free(rng, rng.randint(1, 4))}"
    exp = rng.randint(-30, 30) or 1
    style = i % 6
    if style == 0:
        return f"{mantissa}e{exp}"
    if style == 1:
        return f"{mantissa}E{exp:+d}"
    if style == 2:
        return f"{mantissa} × 10^{exp}"
    if style == 3:
        return f"{mantissa}×10{str(exp).translate(_SUPERSCRIPT)}"
    if style == 4:
        return f"{rng.randint(1, 9)}e{exp}"
    return f"{mantissa}e{exp:+03d}"


def _percent(rng: random.Random, i: int) -> str:
    value = rng.choice([str(rng.randint(0, 100)), f"{rng.randint(0, 99)}.{rng.randint(0, 99)}",
                        f"0.{rng.randint(0, 9)}{rng.randint(1, 9)}"])
    style = i % 6
    if style == 0:
        return f"{value}%"
    if style == 1:
        return f"-{value}%"
    if style == 2:
        return f"+{value}%"
    if style == 3:
        return f"{value.replace('.', ',')}{_NBSP}%"
    if style == 4:
        return f"{value} %"
    return f"{value}‰"


def _currency(rng: random.Random, i: int) -> str:
    digits = _digits(rng, rng.randint(1, 7))
    cents = _cents(rng)
    style = i % 12
    if style == 0:
        return f"${_group(digits, ',')}.{cents}"
    if style == 1:
        return f"€{_group(digits, '.')},{cents}"
    if style == 2:
        return f"{_group(digits, '.')},{cents}{_NBSP}€"
    if style == 3:
        return f"¥{_group(digits, ',')}"
    if style == 4:
        return f"£{_group(digits, ',')}.{cents}"
    if style == 5:
        return f"₹{_group(digits, ',', indian=True)}"
    if style == 6:
        return f"{rng.randint(1, 999)}.{rng.randint(0, 9)}{rng.choice('KMB')} USD"
    if style == 7:
        return f"USD {_group(digits, ',')}.{cents}"
    if style == 8:
        return f"CHF {_group(digits, chr(39))}.{cents}"
    if style == 9:
        return f"₩{_group(digits, ',')}"
    if style == 10:
        return f"R$ {_group(digits, '.')},{cents}"
    return f"-${_group(digits, ',')}.{cents}"


def _date_parts(rng: random.Random) -> tuple[int, int, int]:
    year = rng.randint(1900, 2099)
    month = rng.randint(1, 12)
    day = rng.randint(1, calendar.monthrange(year, month)[1])
    return year, month, day


def _date(rng: random.Random, i: int) -> str:
    y, m, d = _date_parts(rng)
    style = i % 9
    if style == 0:
        return f"{y:04d}-{m:02d}-{d:02d}"
    if style == 1:
        return f"{d:02d}/{m:02d}/{y:04d}"
    if style == 2:
        return f"{m:02d}/{d:02d}/{y:04d}"
    if style == 3:
        return f"{d:02d}.{m:02d}.{y:04d}"
    if style == 4:
        return f"{_MONTHS[m - 1]} {d}, {y}"
    if style == 5:
        return f"{y}年{m}月{d}日"
    if style == 6:
        return f"{d} {_MONTHS[m - 1][:3]} {y}"
    if style == 7:
        return f"{y:04d}{m:02d}{d:02d}"
    return f"{m}/{d}/{y % 100:02d}"


def _time(rng: random.Random, i: int) -> str:
    h, m, s, ms = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59), rng.randint(0, 999)
    style = i % 7
    if style == 0:
        return f"{h:02d}:{m:02d}"
    if style == 1:
        return f"{(h % 12) or 12}:{m:02d} {'AM' if h < 12 else 'PM'}"
    if style == 2:
        return f"{h:02d}:{m:02d}:{s:02d}.{ms:03d}"
    if style == 3:
        return f"{h:02d}:{m:02d}:{s:02d}"
    y, mo, d = _date_parts(rng)
    stamp = f"{y:04d}-{mo:02d}-{d:02d}T{h:02d}:{m:02d}:{s:02d}"
    if style == 4:
        return stamp + "Z"
    if style == 5:
        off = rng.choice(["+09:00", "-05:00", "+05:30", "+01:00", "-08:00", "+00:00", "+12:45"])
        return f"{stamp}.{ms:03d}{off}"
    return f"{y:04d}-{mo:02d}-{d:02d} {h:02d}:{m:02d}:{s:02d} UTC"


def _phone(rng: random.Random, i: int) -> str:
    style = i % 8
    if style == 0:  # 555-01xx is reserved for fiction in North America
        return f"+1 ({rng.randint(201, 989)}) 555-01{_free(rng, 2)}"
    if style == 1:
        return f"+81 3-{_free(rng, 4)}-{_free(rng, 4)}"
    if style == 2:  # 020 7946 0xxx is Ofcom's drama range
        return f"020 7946 0{_free(rng, 3)}"
    if style == 3:
        return f"+44 20 7946 0{_free(rng, 3)}"
    if style == 4:
        return f"+49 30 {_free(rng, 8)}"
    if style == 5:
        return f"+33 1 {_free(rng, 2)} {_free(rng, 2)} {_free(rng, 2)} {_free(rng, 2)}"
    if style == 6:
        return f"+91 {rng.randint(6, 9)}{_free(rng, 4)} {_free(rng, 5)}"
    return f"{rng.randint(201, 989)}.555.01{_free(rng, 2)}"


def _ip(rng: random.Random, i: int) -> str:
    style = i % 6
    if style in (0, 1):
        addr = ipaddress.IPv4Address(rng.getrandbits(32))
        if style == 0:
            return str(addr)
        prefix = rng.randint(8, 30)
        return str(ipaddress.IPv4Network(f"{addr}/{prefix}", strict=False))
    # Zero some 16-bit groups so compressed forms contain "::".
    groups = [0 if rng.random() < 0.4 else rng.getrandbits(16) for _ in range(8)]
    value = 0
    for g in groups:
        value = (value << 16) | g
    v6 = ipaddress.IPv6Address(value)
    if style == 2:
        return v6.exploded
    if style == 3:
        return v6.compressed
    if style == 4:
        net = ipaddress.IPv6Network(f"{v6}/{rng.choice([32, 48, 56, 64])}", strict=False)
        return net.compressed
    return f"{ipaddress.IPv4Address(rng.getrandbits(32))}:{rng.randint(1, 65535)}"


def _version(rng: random.Random, i: int) -> str:
    major, minor, patch = rng.randint(0, 30), rng.randint(0, 40), rng.randint(0, 200)
    style = i % 8
    if style == 0:
        return f"{major}.{minor}.{patch}"
    if style == 1:
        return f"v{major}.{minor}.{patch}-rc.{rng.randint(1, 5)}"
    if style == 2:
        return f"{major}.{minor}"
    if style == 3:
        tag = rng.choice(["alpha", "beta", "dev", "pre"])
        return f"{major}.{minor}.{patch}-{tag}.{rng.randint(0, 9)}+build.{rng.randint(1, 9999)}"
    if style == 4:
        return f">={major}.{minor},<{major + 1}.0"
    if style == 5:
        return f"^{major}.{minor}.{patch}"
    if style == 6:
        return f"{major}.{minor}.{patch}.{rng.randint(0, 99999)}"
    return f"{major}.{minor}.{patch}a{rng.randint(1, 9)}"


def _hex(rng: random.Random, i: int) -> str:
    style = i % 9
    if style == 0:
        return f"0x{rng.getrandbits(8):02X}"
    if style == 1:
        return f"#{rng.getrandbits(24):06x}"
    if style == 2:
        return f"0x{rng.getrandbits(32):08X}"
    if style == 3:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    if style == 4:
        return f"{rng.getrandbits(160):040x}"
    if style == 5:
        return f"{rng.getrandbits(256):064x}"
    if style == 6:
        return f"{rng.getrandbits(28):07x}"
    if style == 7:
        return ":".join(f"{rng.getrandbits(8):02X}" for _ in range(6))
    return f"U+{rng.randint(0x20, 0x1FFFF):04X}"


def _arithmetic(rng: random.Random, i: int) -> str:
    a, b = rng.randint(1, 999), rng.randint(1, 999)
    style = i % 8
    if style == 0:
        return f"{a}+{b}={a + b}"
    if style == 1:
        return f"{a} - {b} = {a - b}"
    if style == 2:
        a, b = rng.randint(2, 99), rng.randint(2, 99)
        return f"{a}×{b}={a * b}"
    if style == 3:
        divisor, quotient = rng.randint(2, 50), rng.randint(1, 99)
        return f"{divisor * quotient}÷{divisor}={quotient}"
    if style == 4:
        base, exp = rng.randint(2, 12), rng.randint(2, 10)
        return f"{base}^{exp}={base ** exp}"
    if style == 5:
        quotient, divisor, low = rng.randint(1, 20), rng.randint(2, 5), rng.randint(1, 50)
        return f"({low + divisor * quotient}-{low})/{divisor}={quotient}"
    if style == 6:
        c = rng.randint(2, 9)
        return f"{c} * ({a} + {b}) = {c * (a + b)}"
    big = a * 1000 + b
    return f"{big}+{b * 37}-{a}={big + b * 37 - a}"


def _fullwidth(rng: random.Random, i: int) -> str:
    style = i % 8
    if style == 0:
        text = _digits(rng, rng.randint(1, 8))
    elif style == 1:
        text = f"￥{_group(_digits(rng, rng.randint(3, 7)), ',')}"
    elif style == 2:
        text = f"{rng.randint(0, 99)}.{_free(rng, rng.randint(1, 3))}"
    elif style == 3:
        text = f"{rng.randint(0, 100)}%"
    elif style == 4:
        y, m, d = _date_parts(rng)
        text = f"{y}年{m}月{d}日"
    elif style == 5:
        text = f"TEL 0{rng.randint(3, 9)}-{_free(rng, 4)}-{_free(rng, 4)}"
    elif style == 6:
        text = f"第{rng.randint(1, 200)}回"
    else:
        text = f"{rng.randint(0, 23)}:{rng.randint(0, 59):02d}"
    # Fullwidth letters are a separate block; only digits and punctuation become wide.
    return text.translate(_FULLWIDTH).replace("TEL", "ＴＥＬ")


_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_AIRLINES = ("LH", "BA", "NH", "AF", "UA", "QF", "KL", "SQ")


def _ordinal(k: int) -> str:
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def _sentence_date(rng: random.Random) -> str:
    y, m, d = rng.randint(1995, 2035), rng.randint(1, 12), rng.randint(1, 28)
    return rng.choice([f"{_MONTHS[m - 1]} {d}, {y}", f"{y:04d}-{m:02d}-{d:02d}",
                       f"{d} {_MONTHS[m - 1]} {y}"])


_FIELDS: dict[str, Callable[[random.Random], str]] = {
    "n": lambda r: str(r.randint(2, 12)),
    "count": lambda r: _group(_digits(r, r.randint(3, 6)), ","),
    "time": lambda r: f"{r.randint(0, 23):02d}:{r.randint(0, 59):02d}",
    "clock": lambda r: f"{r.randint(1, 12)}:{r.randint(0, 59):02d} {r.choice(['AM', 'PM'])}",
    "pct": lambda r: r.choice([f"{r.randint(1, 99)}%", f"{r.randint(0, 40)}.{r.randint(1, 9)}%"]),
    "money": lambda r: f"${_group(_digits(r, r.randint(2, 7)), ',')}.{_cents(r)}",
    "year": lambda r: str(r.randint(1950, 2035)),
    "date": _sentence_date,
    "phone": lambda r: f"+1 ({r.randint(201, 989)}) 555-01{_free(r, 2)}",
    "ver": lambda r: f"{r.randint(0, 9)}.{r.randint(0, 30)}.{r.randint(0, 20)}",
    "dec": lambda r: f"{r.randint(0, 99)}.{r.randint(0, 9)}",
    "order": lambda r: _digits(r, r.randint(6, 9)),
    "ms": lambda r: str(r.choice([250, 500, 750, 1000, 1500, 3000, 30000])),
    "room": lambda r: f"{r.randint(1, 9)}{r.randint(0, 3)}{r.randint(1, 9)}",
    "min": lambda r: str(r.randint(1, 59)),
    "sec": lambda r: f"{r.randint(0, 59):02d}",
    "g": lambda r: str(25 * r.randint(2, 40)),
    "ml": lambda r: str(50 * r.randint(1, 20)),
    "flight": lambda r: f"{r.choice(_AIRLINES)}{r.randint(1, 9999)}",
    "gate": lambda r: f"{r.choice('ABCDE')}{r.randint(1, 60)}",
    "age": lambda r: str(r.randint(18, 65)),
    "addr": lambda r: f"{r.choice(['192.0.2', '198.51.100', '203.0.113'])}.{r.randint(1, 254)}",
    "page": lambda r: str(r.randint(1, 999)),
    "temp": lambda r: str(r.randint(-30, 40)),
    "q": lambda r: str(r.randint(1, 4)),
    "inv": lambda r: f"INV-{r.randint(2015, 2030)}-{_free(r, 5)}",
    "params": lambda r: r.choice(["0.5", "1.5", "3", "7", "8", "13", "70", "405"]),
    "ctx": lambda r: r.choice(["2,048", "4,096", "8,192", "32,768", "128,000", "1,048,576"]),
    "line": lambda r: str(r.randint(1, 4000)),
    "score": lambda r: str(r.randint(0, 100)),
    "ord": lambda r: _ordinal(r.randint(1, 120)),
    "weekday": lambda r: r.choice(_WEEKDAYS),
    "km": lambda r: f"{r.randint(1, 42)}.{r.randint(0, 99):02d}",
    "kg": lambda r: f"{r.randint(0, 30)}.{r.randint(1, 9)}",
}

_SENTENCES = (
    "The {n} trains left at {time} carrying {count} passengers.",
    "Revenue rose {pct} to {money} in fiscal {year}.",
    "Please call {phone} before {time} on {date}.",
    "Version {ver} fixes {n} bugs and adds {n2} new options.",
    "The bridge is {dec} km long and opened to traffic on {date}.",
    "Order #{order} ships in {n} to {n2} business days.",
    "In {year} the village had {count} residents; by {year2} it had {count2}.",
    "Set the timeout to {ms} ms and retry at most {n} times.",
    "Room {room} is on floor {n}, next to the lifts.",
    "She ran {km} km in {min} minutes and {sec} seconds.",
    "The recipe needs {n} eggs, {g} g of flour and {ml} ml of milk.",
    "Flight {flight} to Osaka boards at gate {gate} at {time}.",
    "About {pct} of the {count} people surveyed were under {age}.",
    "The server at {addr} answered in {dec} ms on average.",
    "Chapter {n} begins on page {page} and ends on page {page2}.",
    "The temperature fell from {temp}°C to {temp2}°C overnight.",
    "We shipped {count} units in Q{q} {year}, compared with {count2} a year earlier.",
    "Between {year} and {year2}, rents went up by {pct}.",
    "Invoice {inv} for {money} is due on {date}.",
    "The model has {params}B parameters and a context window of {ctx} tokens.",
    "Line {line}, column {n}: expected {n2} arguments but got {n3}.",
    "The parcel weighs {kg} kg and measures {n}0 × {n2}0 × {n3}0 cm.",
    "Track {n} on the album is {min}:{sec} long.",
    "At {time} on {date}, {count} runners had crossed the finish line.",
    "Her score of {score}/100 was the {ord} best out of {count}.",
    "Save {pct} on orders over {money} until {date}.",
    "The meeting moved to {weekday} at {clock}.",
    "Upgrade from {ver} to {ver2} before {date}; older builds stop working.",
    "A {km} km hike climbs {count} m and takes about {n} hours.",
    "The {year} census counted {count} households and {count2} cars.",
)

_ASCENDING = ("n", "year", "page", "ver")  # "from {year} to {year2}" reads forwards
_DESCENDING = ("temp",)  # "fell from {temp} to {temp2}"


def _numeric_key(value: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"-?\d+", value))


def _sentence(rng: random.Random, i: int) -> str:
    template = _SENTENCES[i % len(_SENTENCES)]
    values: dict[str, str] = {}
    for chunk in template.split("{")[1:]:
        name = chunk.split("}", 1)[0]
        if name in values:
            continue
        base = name.rstrip("0123456789")
        taken = {v for k, v in values.items() if k.rstrip("0123456789") == base}
        value = _FIELDS[base](rng)
        while value in taken:  # "expected 3 arguments but got 3" would be nonsense
            value = _FIELDS[base](rng)
        values[name] = value
    for base in _ASCENDING + _DESCENDING:
        if base in values and base + "2" in values:
            pair = sorted((values[base], values[base + "2"]), key=_numeric_key,
                          reverse=base in _DESCENDING)
            values[base], values[base + "2"] = pair
    return template.format(**values)


_GENERATORS: dict[str, Callable[[random.Random, int], str]] = {
    "integers": _integer, "decimals": _decimal, "separators": _separated,
    "scientific": _scientific, "percent": _percent, "currency": _currency, "dates": _date,
    "times": _time, "phone": _phone, "ip": _ip, "version": _version, "hex": _hex,
    "arithmetic": _arithmetic, "fullwidth": _fullwidth, "sentences": _sentence,
}


def domain_shares(count: int) -> dict[str, int]:
    """How many of ``count`` documents each domain gets: equal shares, the first domains
    taking one extra each until the remainder is used up."""
    base, extra = divmod(count, len(DOMAINS))
    return {d: base + (1 if k < extra else 0) for k, d in enumerate(DOMAINS)}


def generate(seed: int = 0, count: int = 1500) -> list[Document]:
    """Generate ``count`` number documents, the same for the same ``(seed, count)``.

    Each domain's documents cycle through its formats (so every format is present in
    proportion), in an order shuffled by the domain's own generator.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InputError(f"numbers suite: seed must be an integer, got {seed!r}")
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise InputError(f"numbers suite: count must be an integer >= 0, got {count!r}")
    docs: list[Document] = []
    for domain, share in domain_shares(count).items():
        rng = random.Random(f"tokbench-numbers/{seed}/{domain}")
        order = list(range(share))
        rng.shuffle(order)
        lang = SENTENCE_LANG if domain == "sentences" else NUMBER_LANG
        make = _GENERATORS[domain]
        for j, style in enumerate(order):
            docs.append(Document(id=f"{domain}-{j:04d}", lang=lang, domain=domain,
                                 text=make(rng, style)))
    return docs
