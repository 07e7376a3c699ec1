"""Language codes: FLORES-200 style ``xxx_Xxxx`` (ISO 639-3 language + ISO 15924 script).

Every document of a suite carries one of these codes. The table holds all FLORES-200
languages with their English names, plus three codes for text that is no one language:
``zxx_Zyyy`` (no linguistic content: source code, bare numbers), ``und_Zyyy``
(undetermined) and ``mul_Zyyy`` (several languages mixed). The script decides whether
words are separated by spaces, which is what word segmentation (tokbench.suites.words) needs.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import cache

from tokbench.errors import InputError

CODE = "zxx_Zyyy"
"""Language code of text without linguistic content (source code, bare numbers)."""
UNDETERMINED = "und_Zyyy"
"""Language code of text whose language is not known."""
MULTIPLE = "mul_Zyyy"
"""Language code of text that mixes several languages."""

SCRIPTS: dict[str, str] = {
    "Arab": "Arabic", "Armn": "Armenian", "Beng": "Bengali", "Cyrl": "Cyrillic",
    "Deva": "Devanagari", "Ethi": "Ethiopic", "Geor": "Georgian", "Grek": "Greek",
    "Gujr": "Gujarati", "Guru": "Gurmukhi", "Hang": "Hangul", "Hans": "Han (Simplified)",
    "Hant": "Han (Traditional)", "Hebr": "Hebrew", "Jpan": "Japanese (Han + Kana)",
    "Khmr": "Khmer", "Knda": "Kannada", "Laoo": "Lao", "Latn": "Latin", "Mlym": "Malayalam",
    "Mymr": "Myanmar", "Olck": "Ol Chiki", "Orya": "Odia", "Sinh": "Sinhala", "Taml": "Tamil",
    "Telu": "Telugu", "Tfng": "Tifinagh", "Thai": "Thai", "Tibt": "Tibetan",
    "Zyyy": "Common (no one script)",
}
"""ISO 15924 script codes used by the table, with English names."""

UNSPACED_SCRIPTS = frozenset({"Jpan", "Hans", "Hant", "Hani", "Hira", "Kana", "Bopo", "Yiii",
                              "Thai", "Laoo", "Khmr", "Mymr", "Tibt", "Bali", "Java", "Lana",
                              "Talu"})
"""Scripts written without spaces between words (Tibetan marks syllables, not words)."""

ALIASES: dict[str, str] = {"code": CODE, "zxx": CODE, "und": UNDETERMINED, "mul": MULTIPLE}
"""Short names accepted for the three special codes."""

_SHAPE = re.compile(r"^[A-Za-z]{3}_[A-Za-z]{4}$")

# FLORES-200 (204 language-script pairs, with Santali in both of its released scripts).
_FLORES200 = """\
ace_Arab Acehnese (Arabic script)
ace_Latn Acehnese (Latin script)
acm_Arab Mesopotamian Arabic
acq_Arab Ta'izzi-Adeni Arabic
aeb_Arab Tunisian Arabic
afr_Latn Afrikaans
ajp_Arab South Levantine Arabic
aka_Latn Akan
amh_Ethi Amharic
apc_Arab North Levantine Arabic
arb_Arab Modern Standard Arabic
arb_Latn Modern Standard Arabic (Romanized)
ars_Arab Najdi Arabic
ary_Arab Moroccan Arabic
arz_Arab Egyptian Arabic
asm_Beng Assamese
ast_Latn Asturian
awa_Deva Awadhi
ayr_Latn Central Aymara
azb_Arab South Azerbaijani
azj_Latn North Azerbaijani
bak_Cyrl Bashkir
bam_Latn Bambara
ban_Latn Balinese
bel_Cyrl Belarusian
bem_Latn Bemba
ben_Beng Bengali
bho_Deva Bhojpuri
bjn_Arab Banjar (Arabic script)
bjn_Latn Banjar (Latin script)
bod_Tibt Standard Tibetan
bos_Latn Bosnian
bug_Latn Buginese
bul_Cyrl Bulgarian
cat_Latn Catalan
ceb_Latn Cebuano
ces_Latn Czech
cjk_Latn Chokwe
ckb_Arab Central Kurdish
crh_Latn Crimean Tatar
cym_Latn Welsh
dan_Latn Danish
deu_Latn German
dik_Latn Southwestern Dinka
dyu_Latn Dyula
dzo_Tibt Dzongkha
ell_Grek Greek
eng_Latn English
epo_Latn Esperanto
est_Latn Estonian
eus_Latn Basque
ewe_Latn Ewe
fao_Latn Faroese
fij_Latn Fijian
fin_Latn Finnish
fon_Latn Fon
fra_Latn French
fur_Latn Friulian
fuv_Latn Nigerian Fulfulde
gaz_Latn West Central Oromo
gla_Latn Scottish Gaelic
gle_Latn Irish
glg_Latn Galician
grn_Latn Guarani
guj_Gujr Gujarati
hat_Latn Haitian Creole
hau_Latn Hausa
heb_Hebr Hebrew
hin_Deva Hindi
hne_Deva Chhattisgarhi
hrv_Latn Croatian
hun_Latn Hungarian
hye_Armn Armenian
ibo_Latn Igbo
ilo_Latn Ilocano
ind_Latn Indonesian
isl_Latn Icelandic
ita_Latn Italian
jav_Latn Javanese
jpn_Jpan Japanese
kab_Latn Kabyle
kac_Latn Jingpho
kam_Latn Kamba
kan_Knda Kannada
kas_Arab Kashmiri (Arabic script)
kas_Deva Kashmiri (Devanagari script)
kat_Geor Georgian
kaz_Cyrl Kazakh
kbp_Latn Kabiyè
kea_Latn Kabuverdianu
khk_Cyrl Halh Mongolian
khm_Khmr Khmer
kik_Latn Kikuyu
kin_Latn Kinyarwanda
kir_Cyrl Kyrgyz
kmb_Latn Kimbundu
kmr_Latn Northern Kurdish
knc_Arab Central Kanuri (Arabic script)
knc_Latn Central Kanuri (Latin script)
kon_Latn Kikongo
kor_Hang Korean
lao_Laoo Lao
lij_Latn Ligurian
lim_Latn Limburgish
lin_Latn Lingala
lit_Latn Lithuanian
lmo_Latn Lombard
ltg_Latn Latgalian
ltz_Latn Luxembourgish
lua_Latn Luba-Kasai
lug_Latn Ganda
luo_Latn Luo
lus_Latn Mizo
lvs_Latn Standard Latvian
mag_Deva Magahi
mai_Deva Maithili
mal_Mlym Malayalam
mar_Deva Marathi
min_Arab Minangkabau (Arabic script)
min_Latn Minangkabau (Latin script)
mkd_Cyrl Macedonian
mlt_Latn Maltese
mni_Beng Meitei (Bengali script)
mos_Latn Mossi
mri_Latn Maori
mya_Mymr Burmese
nld_Latn Dutch
nno_Latn Norwegian Nynorsk
nob_Latn Norwegian Bokmål
npi_Deva Nepali
nso_Latn Northern Sotho
nus_Latn Nuer
nya_Latn Nyanja
oci_Latn Occitan
ory_Orya Odia
pag_Latn Pangasinan
pan_Guru Eastern Panjabi
pap_Latn Papiamento
pbt_Arab Southern Pashto
pes_Arab Western Persian
plt_Latn Plateau Malagasy
pol_Latn Polish
por_Latn Portuguese
prs_Arab Dari
quy_Latn Ayacucho Quechua
ron_Latn Romanian
run_Latn Rundi
rus_Cyrl Russian
sag_Latn Sango
san_Deva Sanskrit
sat_Beng Santali (Bengali script)
sat_Olck Santali (Ol Chiki script)
scn_Latn Sicilian
shn_Mymr Shan
sin_Sinh Sinhala
slk_Latn Slovak
slv_Latn Slovenian
smo_Latn Samoan
sna_Latn Shona
snd_Arab Sindhi
som_Latn Somali
sot_Latn Southern Sotho
spa_Latn Spanish
als_Latn Tosk Albanian
srd_Latn Sardinian
srp_Cyrl Serbian
ssw_Latn Swati
sun_Latn Sundanese
swe_Latn Swedish
swh_Latn Swahili
szl_Latn Silesian
tam_Taml Tamil
taq_Latn Tamasheq (Latin script)
taq_Tfng Tamasheq (Tifinagh script)
tat_Cyrl Tatar
tel_Telu Telugu
tgk_Cyrl Tajik
tgl_Latn Tagalog
tha_Thai Thai
tir_Ethi Tigrinya
tpi_Latn Tok Pisin
tsn_Latn Tswana
tso_Latn Tsonga
tuk_Latn Turkmen
tum_Latn Tumbuka
tur_Latn Turkish
twi_Latn Twi
tzm_Tfng Central Atlas Tamazight
uig_Arab Uyghur
ukr_Cyrl Ukrainian
umb_Latn Umbundu
urd_Arab Urdu
uzn_Latn Northern Uzbek
vec_Latn Venetian
vie_Latn Vietnamese
war_Latn Waray
wol_Latn Wolof
xho_Latn Xhosa
ydd_Hebr Eastern Yiddish
yor_Latn Yoruba
yue_Hant Yue Chinese (Cantonese)
zho_Hans Chinese (Simplified)
zho_Hant Chinese (Traditional)
zsm_Latn Standard Malay
zul_Latn Zulu
"""

_SPECIAL = {CODE: "No linguistic content (source code, numbers)",
            UNDETERMINED: "Undetermined language", MULTIPLE: "Multiple languages"}


@dataclass(frozen=True)
class Language:
    """One language-script pair: ``code`` like ``jpn_Jpan`` and its English ``name``."""

    code: str
    name: str

    @property
    def iso639_3(self) -> str:
        return self.code.split("_")[0]

    @property
    def script(self) -> str:
        return self.code.split("_")[1]

    @property
    def script_name(self) -> str:
        return SCRIPTS.get(self.script, self.script)

    @property
    def space_delimited(self) -> bool:
        """True when spaces separate words (False for Japanese, Chinese, Thai, Tibetan...)."""
        return self.script not in UNSPACED_SCRIPTS and self.script != "Zyyy"

    @property
    def flores200(self) -> bool:
        """True for the FLORES-200 languages (False for the special codes)."""
        return self.code not in _SPECIAL


@cache
def languages() -> dict[str, Language]:
    """All known codes -> Language: the FLORES-200 languages, then the special codes."""
    table = {code: Language(code, name) for code, _, name in
             (line.partition(" ") for line in _FLORES200.splitlines())}
    table.update({code: Language(code, name) for code, name in _SPECIAL.items()})
    return table


@cache
def _by_lower() -> dict[str, str]:
    return {code.lower(): code for code in languages()}


def looks_like_code(name: str) -> bool:
    """True if ``name`` has the shape of a FLORES code (``abc_Abcd``), known or not."""
    return bool(_SHAPE.match(name))


def suggest(code: str, n: int = 3) -> list[str]:
    """Known codes close to ``code``: the same language in another script if there is
    one, else codes spelled alike and languages whose English name contains ``code``."""
    table = languages()
    low = code.strip().lower()
    iso = low.split("_")[0]
    same = [c for c in table if len(iso) == 3 and c.lower().startswith(iso + "_")]
    if same:
        return same[:n]
    found = [_by_lower()[c] for c in difflib.get_close_matches(low, list(_by_lower()), n=n,
                                                               cutoff=0.6)]
    if len(low) >= 3:
        found += [c for c, lang in table.items() if low in lang.name.lower()]
    return list(dict.fromkeys(found))[:n]


def canonical_lang(code: str, where: str = "") -> str:
    """The known code for ``code`` (case-insensitive; aliases ``code``, ``und``, ``mul``).

    Raises InputError naming ``code`` (and ``where`` it came from) with suggestions.
    """
    if code in languages():
        return code
    key = code.strip().lower()
    if key in ALIASES:
        return ALIASES[key]
    if key in _by_lower():
        return _by_lower()[key]
    close = suggest(code)
    hint = ("; did you mean " + " or ".join(repr(c) for c in close) + "?") if close else ""
    prefix = f"{where}: " if where else ""
    raise InputError(f"{prefix}unknown language code {code!r}{hint} (use a FLORES-200 code: "
                     "ISO 639-3 language + '_' + ISO 15924 script, e.g. eng_Latn, jpn_Jpan; "
                     "zxx_Zyyy for code, und_Zyyy if unknown)")


def get_language(code: str) -> Language:
    """The Language for ``code``; raises InputError with suggestions when unknown."""
    return languages()[canonical_lang(code)]


def language_name(code: str) -> str:
    """English name of ``code``, or ``code`` itself when unknown (never raises)."""
    lang = languages().get(code)
    return lang.name if lang else code
