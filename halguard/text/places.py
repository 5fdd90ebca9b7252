"""Places by name, code and demonym: what :mod:`halguard.text.mentions` matches a place name by.

ISO 3166 countries (name, common and official name, alpha-2 and alpha-3 codes) and the first-level subdivisions of
:data:`SUBDIVISION_COUNTRIES` (name and postal code) come from ``pycountry``; airports by IATA code and name from
``airportsdata`` ("LAX" / "Los Angeles International Airport"); the country a passage's city implies
(:data:`_CITY_COUNTRIES`: "London" mentions the United Kingdom, one way only); short forms ISO does not list from
:data:`_COUNTRY_SHORT_FORMS`; demonyms and place adjectives ("Texan", "Colombian", "American") from WordNet's
pertainyms and derivations (:mod:`halguard.text.wordnet`), and the English rule that makes a place in -a a demonym in
-an ("Pennsylvanian"). A place is a key ("country:US", "subdivision:US-CA"); two names name one place when their keys
meet.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from functools import lru_cache

from halguard.text.dates import MONTHS, WEEKDAYS
from halguard.text.lexical import STOPWORDS, stem
from halguard.text.wordnet import licensers

__all__ = ["ACRONYM", "SUBDIVISION_COUNTRIES", "all_said_or_demonyms", "demonym_of", "is_demonym",
           "demonym_place_keys", "mentioned_places", "place_keys"]

# An acronym as written: capitals, with or without dots ("EU", "U.S.", "AT&T").
ACRONYM = re.compile(r"[A-Z](?:\.?[A-Z&])+\.?")

# Countries whose first-level subdivisions are written by their codes in addresses and records ("Goleta, CA",
# "Toronto, ON", "Sydney NSW"): the United States, Canada and Australia. Other countries' ISO subdivision codes are
# numbers or codes no text uses ("FR-75"), which would only add chance matches.
SUBDIVISION_COUNTRIES = ("US", "CA", "AU")

# Short forms of countries that ISO 3166 does not list (pycountry has "United States", "USA", "US"; not "U.S.",
# "America", "UK", "Britain"). Hand-typed from common English usage; keys are canonical ISO alpha-2 codes.
_COUNTRY_SHORT_FORMS = {
    "US": ("U.S.", "U.S.A.", "America", "United States of America"),
    "GB": ("UK", "U.K.", "Britain", "Great Britain", "United Kingdom"),
    "RU": ("Russia",),
    "KR": ("South Korea", "Korea"),
    "KP": ("North Korea",),
    "IR": ("Iran",),
    "SY": ("Syria",),
    "VN": ("Vietnam",),
    "TW": ("Taiwan",),
    "VE": ("Venezuela",),
    "BO": ("Bolivia",),
    "TZ": ("Tanzania",),
    "LA": ("Laos",),
    "MD": ("Moldova",),
    "CZ": ("Czech Republic",),
    "NL": ("Holland",),
    "AE": ("UAE", "U.A.E.", "Emirates"),
    # names ISO 3166 replaced that English text still writes (pycountry has only the new ones)
    "TR": ("Turkey",),
    "SZ": ("Swaziland",),
    "MK": ("Macedonia",),
    "MM": ("Burma",),
    "CI": ("Ivory Coast",),
    "CV": ("Cape Verde",),
    "TL": ("East Timor",),
}

# Titles and their abbreviations (one entry per title: the forms that say it). A title is not the name of whom it
# precedes: "Rep. George Santos" is found when "George Santos" is. Hand-typed (no maintained list exists in a

# A demonym and its place begin alike ("Texan" / "Texas", "French" / "France"): WordNet also relates a word to its
# more general and more specific words ("American" / "Texan"), which name other places.
_DEMONYM_PREFIX = 2
# The shortest stem read as a place a demonym names ("Peru", "Iran", "Oman"; not the "Th" WordNet gives Thursday).
_PLACE_MIN_CHARS = 4
# Weekdays and months, by stem: dates, never demonyms ("Thursday" is no adjective of "the").
_DATE_WORDS = frozenset(stem(w) for w in WEEKDAYS + MONTHS)
# Nouns for a country's people that WordNet does not relate to the country ("Turk" is related to the Turkic
# languages there): by stem, to the country's name stems. Hand-listed general English; none a given name's stem
# ("Danes" stems to "dan", "Finns" to "finn": left out).
_PEOPLE_NOUNS = {stem(people): tuple(stem(p) for p in places) for people, places in (
    ("Turks", ("Turkey",)), ("Swedes", ("Sweden",)), ("Dutch", ("Netherlands", "Holland")), ("Thais", ("Thailand",)),
    ("Thai", ("Thailand",)), ("Britons", ("Britain",)), ("Brits", ("Britain",)), ("Swiss", ("Switzerland",)))}


_places_lock = threading.Lock()
_places: tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]] | None = None


def _place_tables() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """(lower-cased name -> place keys, code as written in capitals -> place keys), built once from pycountry and
    the short forms above (pycountry missing: the short forms only)."""
    global _places
    if _places is not None:
        return _places
    with _places_lock:
        if _places is not None:
            return _places
        names: dict[str, set[str]] = {}
        codes: dict[str, set[str]] = {}

        def add(key: str, alias: str) -> None:
            bare = alias.strip().replace(".", "")
            if not bare:
                return
            if bare.isupper() and len(bare) <= 4:
                codes.setdefault(bare, set()).add(key)
            else:
                names.setdefault(bare.lower(), set()).add(key)

        try:
            import pycountry
        except ImportError:  # pragma: no cover - a dependency; without it places match by their words only
            pycountry = None
        if pycountry is not None:
            for c in pycountry.countries:
                key = f"country:{c.alpha_2}"
                for attr in ("name", "common_name", "official_name", "alpha_2", "alpha_3"):
                    value = getattr(c, attr, None)
                    if value:
                        add(key, value)
            for country in SUBDIVISION_COUNTRIES:
                for sub in pycountry.subdivisions.get(country_code=country) or ():
                    key = f"subdivision:{sub.code}"
                    add(key, sub.name)
                    add(key, sub.code.split("-", 1)[1])
        try:
            import airportsdata
        except ImportError:  # pragma: no cover - a dependency; without it airports match by their words only
            airportsdata = None
        if airportsdata is not None:
            # An airport by its IATA code and its name ("LAX" / "Los Angeles International Airport"); not by its
            # city alone: a city can have several airports, and a claim naming one is more than its passage said.
            for code, airport in airportsdata.load("IATA").items():
                if len(code) == 3 and airport.get("name"):
                    add(f"airport:{code}", code)
                    add(f"airport:{code}", airport["name"])
        for alpha2, forms in _COUNTRY_SHORT_FORMS.items():
            for form in forms:
                add(f"country:{alpha2}", form)
        _places = ({a: frozenset(k) for a, k in names.items()}, {a: frozenset(k) for a, k in codes.items()})
    return _places


def place_keys(name: str) -> frozenset[str]:
    """The places ``name`` can be ("California" -> the US state; "CA" -> California, Canada), or none. A code
    counts only written in capitals ("CA", "U.S."; not "ca")."""
    names, codes = _place_tables()
    bare = name.strip()
    for article in ("the ", "The "):
        bare = bare.removeprefix(article)
    bare = bare.replace(".", "")
    return names.get(bare.lower(), frozenset()) | codes.get(bare, frozenset())


def mentioned_places(text: str, spans: list[tuple[int, int]], words: list[str]) -> frozenset[str]:
    """The place keys of the aliases ``text`` holds: names as word runs of up to four, case-folded; codes as
    written in capitals ("CA", "U.S."), standing alone, not inside a longer name ("JP Morgan" names no country)."""
    names, codes = _place_tables()
    found: set[str] = set()
    lowered = [w.lower() for w in words]

    def joined(i: int, j: int) -> bool:  # words i and j (= i + 1) of one capitalised run: only spaces between
        return 0 <= i and j < len(spans) and words[i][:1].isupper() and words[j][:1].isupper() and \
            text[spans[i][1]:spans[j][0]].strip() == ""

    for i, w in enumerate(words):
        alone = not joined(i - 1, i) and not joined(i, i + 1)
        if alone and w in codes:
            found |= codes[w]
        if alone and len(w) > 3 and w[:1].isupper():  # "a worn American flag" mentions the United States
            found |= demonym_place_keys(w)
        for n in range(1, 5):
            if i + n > len(words):
                break
            found |= names.get(" ".join(lowered[i:i + n]), frozenset())
        if w[:1].isupper() and not joined(i - 1, i):  # a city as a whole name ("London"; not "New South Wales")
            n = next((n for n in range(1, 4) if i + n <= len(words) and not joined(i + n - 1, i + n)), 0)
            found |= _CITY_COUNTRY.get(" ".join(lowered[i:i + n]), frozenset()) if n else frozenset()
    for m in ACRONYM.finditer(text):
        if "." in m.group(0):
            found |= codes.get(m.group(0).replace(".", ""), frozenset())
    return frozenset(found)


# Cities that imply their country when a passage names them: "U.K. activists" in a summary of "activists in London".
# Hand-typed (capitals and the largest cities, as English news names them; not from the development data), the city
# alone, written as a whole name: a passage naming Paris, Texas, is rare next to one naming Paris. Read on the
# passages' side only: a claim naming London says more than a passage naming the United Kingdom. (airportsdata's
# cities were tried: by their airports "Rome" and "Dublin" are mostly American towns.)
_CITY_COUNTRIES = {
    "GB": ("London", "Manchester", "Edinburgh", "Glasgow", "Liverpool", "Leeds", "Cardiff", "Belfast"),
    "US": ("New York", "New York City", "Los Angeles", "Chicago", "Houston", "Washington", "San Francisco", "Boston",
           "Seattle", "Philadelphia", "Miami", "Atlanta", "Dallas", "Detroit", "Las Vegas"),
    "FR": ("Paris", "Marseille", "Lyon", "Toulouse", "Bordeaux"),
    "DE": ("Berlin", "Munich", "Hamburg", "Frankfurt", "Cologne"),
    "IT": ("Rome", "Milan", "Naples", "Turin", "Florence", "Venice"),
    "ES": ("Madrid", "Barcelona", "Seville"),
    "RU": ("Moscow", "St Petersburg", "Saint Petersburg"),
    "UA": ("Kyiv", "Kiev", "Kharkiv", "Odesa", "Odessa"),
    "CN": ("Beijing", "Shanghai", "Shenzhen", "Guangzhou", "Wuhan"),
    "JP": ("Tokyo", "Osaka", "Kyoto", "Yokohama"),
    "IN": ("New Delhi", "Delhi", "Mumbai", "Bangalore", "Bengaluru", "Kolkata", "Chennai"),
    "CA": ("Toronto", "Montreal", "Vancouver", "Ottawa"),
    "AU": ("Sydney", "Melbourne", "Canberra", "Brisbane"),
    "BR": ("Rio de Janeiro", "Brasilia", "São Paulo", "Sao Paulo"),
    "MX": ("Mexico City", "Guadalajara"),
    "IE": ("Dublin",), "NL": ("Amsterdam", "Rotterdam", "The Hague"), "BE": ("Brussels", "Antwerp"),
    "AT": ("Vienna",), "CH": ("Zurich", "Geneva", "Bern"), "SE": ("Stockholm",), "NO": ("Oslo",),
    "DK": ("Copenhagen",), "FI": ("Helsinki",), "PL": ("Warsaw", "Krakow"), "CZ": ("Prague",), "HU": ("Budapest",),
    "GR": ("Athens",), "PT": ("Lisbon", "Porto"), "TR": ("Istanbul", "Ankara"), "EG": ("Cairo",),
    "IL": ("Jerusalem", "Tel Aviv"), "SA": ("Riyadh", "Jeddah"), "AE": ("Dubai", "Abu Dhabi"), "IR": ("Tehran",),
    "KR": ("Seoul", "Busan"), "TH": ("Bangkok",), "VN": ("Hanoi", "Ho Chi Minh City"), "ID": ("Jakarta",),
    "PH": ("Manila",), "SG": ("Singapore",), "PK": ("Karachi", "Lahore", "Islamabad"), "NG": ("Lagos", "Abuja"),
    "KE": ("Nairobi",), "ZA": ("Johannesburg", "Cape Town", "Pretoria"), "AR": ("Buenos Aires",),
    "CO": ("Bogotá", "Bogota"), "PE": ("Lima",), "NZ": ("Auckland", "Wellington"),
}
_CITY_COUNTRY = {city.lower(): frozenset({f"country:{code}"}) for code, cities in _CITY_COUNTRIES.items()
                 for city in cities}


def demonym_place_keys(word: str) -> frozenset[str]:
    """The places a demonym or place adjective names ("American" -> the United States, "Texan" -> Texas, "French" ->
    France: WordNet relates it to the stem "franc")."""
    keys: frozenset[str] = frozenset()
    for place in _related_places(stem(word)):
        keys |= place_keys(place) or _one_word_places().get(place, frozenset())
    return keys


@lru_cache(maxsize=1)
def _one_word_places() -> dict[str, frozenset[str]]:
    """The stems of one-word place names (at least :data:`_PLACE_MIN_CHARS` letters) -> their keys: WordNet's
    relations are keyed by stems ("franc" for France)."""
    out: dict[str, frozenset[str]] = {}
    for name, keys in _place_tables()[0].items():
        if " " not in name and len(name) >= _PLACE_MIN_CHARS and name.isalpha():
            out[stem(name)] = out.get(stem(name), frozenset()) | keys
    return out


def is_demonym(word: str) -> bool:
    """Whether ``word`` is a demonym or place adjective ("Russian", "Texan"), not a name of its own."""
    return bool(demonym_place_keys(word)) and not place_keys(word)


def all_said_or_demonyms(stems: Sequence[str], said: frozenset[str]) -> bool:
    """Each of ``stems`` is in ``said`` or a demonym of one there, and at least one is a demonym."""
    related = False
    for st in stems:
        if st in said:
            continue
        if not _place_word(st, said):
            return False
        related = True
    return related


@lru_cache(maxsize=4096)
def _related_places(term_stem: str) -> tuple[str, ...]:
    low = term_stem.lower()
    if low in _DATE_WORDS:
        return ()  # a weekday or a month names a date, which the date checks compare, never a place
    # WordNet also lists a word's abbreviations ("Th", "Thu" for Thursday): a licenser this short, or a stopword
    # ("the"), would find the word in any passage
    related = tuple(o for o in licensers(low) if _shared_prefix(o, low) >= _DEMONYM_PREFIX
                    and len(o) >= _PLACE_MIN_CHARS and o not in STOPWORDS)
    # English makes the demonym of a place in -a by adding -n ("Pennsylvanian", "Californian", "Georgian"); WordNet
    # lists some of them, not all ("Pennsylvanian" is only a geological period there).
    if len(low) > 4 and low.endswith("an"):
        related += (low[:-1],)
    return related + _PEOPLE_NOUNS.get(low, ())


def _place_word(term_stem: str, terms: frozenset[str]) -> bool:
    return any(o in terms for o in _related_places(term_stem))


def demonym_of(words: Iterable[str], names: Iterable[str]) -> bool:
    """Whether each of ``words`` (lower-cased name words) is one of ``names`` or a demonym / adjective of one of
    them ("texan" of "texas"), and at least one is a demonym."""
    return all_said_or_demonyms([stem(w) for w in words], frozenset(stem(n) for n in names))


def _shared_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n
