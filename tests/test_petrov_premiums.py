"""Token premiums against the published figures of Petrov et al. (NeurIPS 2023).

Petrov, La Malfa, Torr, Bibi, "Language Model Tokenizers Introduce Unfairness Between
Languages", NeurIPS 2023. Their method (AleksandarPetrov/tokenization-fairness,
compute/compute_tokenizations.py and compute/tokenizer_interface.py): for each language,
every FLORES-200 dev and devtest line (2,009 sentences) joined with spaces into one text,
encoded once without special tokens (tiktoken ``encode``; Hugging Face
``convert_tokens_to_ids(tokenize(text))`` for "meta-llama/Llama-2-7b-chat-hf" and
"xlm-roberta-base"); premium = tokens(language) / tokens(English). That is tokbench's
``premium_join`` on ``flores200?split=both``.

Two references per pair: the premium printed in the paper (two decimals), and the ratio of
the raw token counts the authors published, which tokbench reproduces to a few tokens in
several hundred thousand.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import tokbench

pytestmark = [pytest.mark.real, pytest.mark.needs("flores")]  # and fetched tokenizer files

PIVOT = "eng_Latn"
LANGS = ("jpn_Jpan", "zho_Hans", "kor_Hang", "hin_Deva", "mya_Mymr")
TOKENIZERS = ("gpt2", "cl100k_base", "llama-2", "xlm-roberta")

# Premiums printed in the paper: Appendix C, "Extended Tables of Tokenization Premiums"
# (NeurIPS 2023 camera-ready; Japanese, Korean, Hindi and Burmese rows on p. 25, Chinese
# (Simplified) on p. 27). Columns: "GPT-2", "cl100k_base" (ChatGPT/GPT-4), "LLAMA",
# "XLM-RoBERTa". The main text repeats some of them: Table 1 (p. 3) GPT-2 and ChatGPT/GPT-4
# for Burmese, Chinese (Simplified), Japanese; Table 4 (p. 5) XLM-R for Chinese (Simp.), Japanese.
PUBLISHED: dict[str, dict[str, float]] = {
    # Appendix C column "GPT-2" (also Table 1 "GPT-2 RoBERTa")
    "gpt2": {"jpn_Jpan": 3.00, "zho_Hans": 3.21, "kor_Hang": 5.07, "hin_Deva": 7.46,
             "mya_Mymr": 16.89},
    # Appendix C column "cl100k_base" (also Table 1 "ChatGPT GPT-4")
    "cl100k_base": {"jpn_Jpan": 2.30, "zho_Hans": 1.91, "kor_Hang": 2.38, "hin_Deva": 4.79,
                    "mya_Mymr": 11.70},
    # Appendix C column "LLAMA" (the paper's tokenizer id: meta-llama/Llama-2-7b-chat-hf)
    "llama-2": {"jpn_Jpan": 2.24, "zho_Hans": 2.00, "kor_Hang": 3.18, "hin_Deva": 4.60,
                "mya_Mymr": 8.37},
    # Appendix C column "XLM-RoBERTa" (also Table 4 "XLM-R"; id xlm-roberta-base)
    "xlm-roberta": {"jpn_Jpan": 1.11, "zho_Hans": 0.97, "kor_Hang": 1.16, "hin_Deva": 1.25,
                    "mya_Mymr": 1.72},
}

# Raw token counts of the joined dev+devtest text, from assets/tokenization_lengths.csv of
# github.com/AleksandarPetrov/tokenization-fairness at commit
# 365c3f85bdb302fdcf6d389f5f1651e4ef041741 (rows "English", "Japanese", "Chinese
# (Simplified)", "Korean", "Hindi", "Burmese"; columns "GPT-2", "cl100k_base", "LLAMA",
# "XLM-RoBERTa"). Rounded to two decimals, their ratios are the PUBLISHED premiums above.
PUBLISHED_COUNTS: dict[str, dict[str, int]] = {
    "gpt2": {"eng_Latn": 52567, "jpn_Jpan": 157858, "zho_Hans": 168850, "kor_Hang": 266663,
             "hin_Deva": 392092, "mya_Mymr": 887930},
    "cl100k_base": {"eng_Latn": 52835, "jpn_Jpan": 121627, "zho_Hans": 101138,
                    "kor_Hang": 125737, "hin_Deva": 253270, "mya_Mymr": 618268},
    "llama-2": {"eng_Latn": 60621, "jpn_Jpan": 135526, "zho_Hans": 121054, "kor_Hang": 192635,
                "hin_Deva": 278602, "mya_Mymr": 507396},
    "xlm-roberta": {"eng_Latn": 59656, "jpn_Jpan": 66414, "zho_Hans": 57887, "kor_Hang": 69124,
                    "hin_Deva": 74861, "mya_Mymr": 102718},
}

CASES = [(tok, lang) for tok in TOKENIZERS for lang in LANGS]


@pytest.fixture(scope="module")
def premiums(real_cache: Path) -> dict[tuple[str, str], float]:
    """Joined premiums of the four tokenizers on FLORES-200 dev+devtest, computed once."""
    suite = tokbench.load_suite(
        f"flores200?split=both&languages={','.join((PIVOT, *LANGS))}")
    assert len(suite.documents) == 6 * 2009  # 997 dev + 1012 devtest lines per language
    results = tokbench.run(tokenizers=list(TOKENIZERS), suites=[suite], metrics=["premium"],
                           premium_join=True)
    assert results.meta.errors == [] and results.failures == []
    return {(r.tokenizer, r.subset): float(r.value) for r in results.rows
            if r.metric == "premium" and r.value is not None}


@pytest.mark.parametrize(("tokenizer", "lang"), CASES)
def test_premium_matches_paper(premiums: dict[tuple[str, str], float], tokenizer: str,
                               lang: str) -> None:
    assert premiums[(tokenizer, lang)] == pytest.approx(PUBLISHED[tokenizer][lang], rel=0.01)


@pytest.mark.parametrize(("tokenizer", "lang"), CASES)
def test_premium_matches_published_counts(premiums: dict[tuple[str, str], float],
                                          tokenizer: str, lang: str) -> None:
    """Tighter: the authors' unrounded ratio, to 0.1% (tokbench is within 0.005%)."""
    counts = PUBLISHED_COUNTS[tokenizer]
    assert premiums[(tokenizer, lang)] == pytest.approx(counts[lang] / counts[PIVOT], rel=1e-3)
