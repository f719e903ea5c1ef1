"""The planner in the merchant's language (issue 10 item 6): German, Dutch, Portuguese, Spanish, French,
Italian, Polish and Russian questions resolve to the same skills and Google nodes as in English.

Resolved against the demo catalog (read through the catalog layer) and the bundled taxonomies; the
localised category names are Google's own (data/taxonomy/*.txt), with plural and case endings as
merchants write them. English questions must pass the lexicon untouched.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent.analysis import lexicon
from agent.analysis.planner import PlanMemory, plan, raw_tokens
from agent.analysis.planner import stem as en_stem
from agent.analysis.registry import SKILLS
from agent.catalog.taxonomy import load, load_locale
from tests.planner_questions import QUESTIONS as ENGLISH_QUESTIONS

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo" / "catalog.csv"
TAX = load()
GAPS, PRICE, ATTR, BRAND, AVAIL, CONTENT, OVERVIEW, DEMAND = SKILLS


@pytest.fixture(scope="module")
def own():
    from agent.catalog.ingest import read_table_bytes

    table, _ = read_table_bytes(DEMO.read_bytes(), DEMO.name, "bundled demo catalog")
    return table


# (question, skills, Google id of the scope or None for the whole catalog); per language every intent at least once
BY_LANGUAGE = {
    "de": [  # German
        ("Welche Unterkategorien fehlen mir bei Gartenmöbeln?", (GAPS,), 4299),
        ("Wo sind die Lücken bei Gartenmöbeln?", (GAPS,), 4299),
        ("Lücken bei Teppichen", (GAPS,), 598),
        ("Welche Preisstufen habe ich bei Gartenstühlen?", (PRICE,), 6828),
        ("Wie teuer sind meine Sonnenliegen?", (PRICE,), 4105),
        ("Welche Farben und Materialien fehlen bei Gartensitzmöbeln?", (ATTR,), 6368),
        ("Welche Marken führen die Wettbewerber, die ich nicht habe?", (BRAND,), None),
        ("Wie ist die Preisverteilung bei Sonnenliegen?", (PRICE,), 4105),
        ("Welche Gartentische sind nicht auf Lager?", (AVAIL,), 2684),
        ("Was ist ausverkauft bei Außengrills?", (AVAIL,), 2985),
        ("Ist mein Katalog bereit für Google Shopping?", (CONTENT,), None),
        ("Welchen Produkten fehlen Bilder oder GTINs?", (CONTENT,), None),
        ("Gib mir einen Überblick über meinen Katalog", (OVERVIEW,), None),
        ("Wie viele Produkte habe ich in der Beleuchtung?", (OVERVIEW,), 594),
    ],
    "nl": [  # Dutch
        ("Welke subcategorieën mis ik bij buitenmeubelen?", (GAPS,), 4299),
        ("Welke producten zijn niet op voorraad in tuinmeubelen?", (AVAIL,), 4299),
        ("Waar zitten de gaten in mijn buitenmeubelen?", (GAPS,), 4299),
        ("Gaten in tuinverlichting", (GAPS,), 594),
        ("Hoe zijn mijn buitenstoelen geprijsd? Wat zijn de prijzen?", (PRICE,), 6828),
        ("Prijzen van tuintafels", (PRICE,), 2684),
        ("Welke kleuren en materialen ontbreken bij buitenzitjes?", (ATTR,), 6368),
        ("Welke merken hebben de concurrenten die ik niet heb?", (BRAND,), None),
        ("Hoeveel ligstoelen zijn uitverkocht?", (AVAIL,), 4105),
        ("Is mijn catalogus klaar voor Google Shopping?", (CONTENT,), None),
        ("Welke producten missen afbeeldingen?", (CONTENT,), None),
        ("Geef me een overzicht van mijn catalogus", (OVERVIEW,), None),
    ],
    "pt": [  # Portuguese
        ("Que tamanhos eu ofereço em tapetes?", (ATTR,), 598),
        ("Quais produtos estão com estoque baixo?", (AVAIL,), None),
        ("Quais marcas os concorrentes têm que eu não tenho?", (BRAND,), None),
        ("Onde estão as lacunas em móveis para exteriores?", (GAPS,), 4299),
        ("Lacunas em iluminação", (GAPS,), 594),
        ("Quais são os preços das minhas cadeiras para exteriores?", (PRICE,), 6828),
        ("Preços das mesas para exteriores", (PRICE,), 2684),
        ("Quais cores e materiais faltam nos assentos para exteriores?", (ATTR,), 6368),
        ("Quais produtos estão sem estoque em móveis de jardim?", (AVAIL,), 4299),
        ("Quais churrasqueiras externas estão esgotadas?", (AVAIL,), 2985),
        ("Meu catálogo está pronto para o Google Shopping?", (CONTENT,), None),
        ("Quais produtos não têm imagens?", (CONTENT,), None),
        ("Me dê uma visão geral do catálogo", (OVERVIEW,), None),
        ("Quanto custam minhas cadeiras de praia?", (PRICE,), 4105),
        ("Há produtos duplicados no meu feed?", (CONTENT,), None),
    ],
    "es": [  # Spanish
        ("¿Qué productos tienen poco stock?", (AVAIL,), None),  # "poco" alone is no gap
        ("¿Dónde están los huecos en muebles de jardín?", (GAPS,), 4299),
        ("Huecos en alfombras", (GAPS,), 598),
        ("¿Cómo están los precios de mis sillas de exterior?", (PRICE,), 6828),
        ("Precios de las mesas de exterior", (PRICE,), 2684),
        ("¿Qué colores y materiales faltan en asientos de exterior?", (ATTR,), 6368),
        ("¿Qué marcas tienen los competidores que yo no tengo?", (BRAND,), None),
        ("¿Qué tumbonas están agotadas?", (AVAIL,), 4105),
        ("¿Cuántas barbacoas no están disponibles?", (AVAIL,), 2985),
        ("¿Está mi catálogo listo para Google Shopping?", (CONTENT,), None),
        ("¿Qué productos no tienen imágenes?", (CONTENT,), None),
        ("Dame un resumen del catálogo", (OVERVIEW,), None),
    ],
    "fr": [  # French
        ("Quelles tailles proposez-vous pour les tapis ?", (ATTR,), 598),
        ("Où sont les lacunes dans les meubles de jardin ?", (GAPS,), 4299),
        ("Lacunes dans les luminaires", (GAPS,), 594),
        ("Quels sont les prix de mes chaises d'extérieur ?", (PRICE,), 6828),
        ("Prix des grils d'extérieur", (PRICE,), 2985),
        ("Quelles couleurs et matières manquent dans les sièges d'extérieur ?", (ATTR,), 6368),
        ("Quelles marques ont les concurrents que je n'ai pas ?", (BRAND,), None),
        ("Quels bains de soleil sont en rupture de stock ?", (AVAIL,), 4105),
        ("Les tables d'extérieur sont-elles épuisées ?", (AVAIL,), 2684),
        ("Mon catalogue est-il prêt pour Google Shopping ?", (CONTENT,), None),
        ("Quels produits n'ont pas d'images ?", (CONTENT,), None),
        ("Donne-moi un aperçu du catalogue", (OVERVIEW,), None),
        ("Y a-t-il des doublons dans mon flux ?", (CONTENT,), None),
    ],
    "it": [  # Italian
        ("Quali sottocategorie mi mancano nell'illuminazione?", (GAPS,), 594),
        ("Quali prodotti hanno poca disponibilità?", (AVAIL,), None),
        ("Dove sono le lacune nei mobili da giardino?", (GAPS,), 4299),
        ("Lacune nell'illuminazione", (GAPS,), 594),
        ("Come sono i prezzi delle mie sedie da esterno?", (PRICE,), 6828),
        ("Prezzi delle griglie per esterni", (PRICE,), 2985),
        ("Quali colori e materiali mancano nei mobili-sedie da esterno?", (ATTR,), 6368),
        ("Quali marche hanno i concorrenti che io non ho?", (BRAND,), None),
        ("Quali lettini prendisole sono esauriti?", (AVAIL,), 4105),
        ("Quanti tavoli da esterno non sono disponibili?", (AVAIL,), 2684),
        ("Il mio catalogo è pronto per Google Shopping?", (CONTENT,), None),
        ("Quali prodotti non hanno immagini?", (CONTENT,), None),
        ("Dammi una panoramica del catalogo", (OVERVIEW,), None),
    ],
    "pl": [  # Polish
        ("Które produkty mają niski stan magazynowy?", (AVAIL,), None),
        ("Gdzie są luki w meblach ogrodowych?", (GAPS,), 4299),
        ("Luki w oświetleniu", (GAPS,), 594),
        ("Jakie są ceny w krzesłach ogrodowych?", (PRICE,), 6828),
        ("Ceny grilli na zewnątrz", (PRICE,), 2985),
        ("Jakich kolorów i materiałów brakuje w siedzeniach ogrodowych?", (ATTR,), 6368),
        ("Jakie marki mają konkurenci, których ja nie mam?", (BRAND,), None),
        ("Które leżaki są niedostępne?", (AVAIL,), 4105),
        ("Ile stołów ogrodowych jest wyprzedanych?", (AVAIL,), 2684),
        ("Czy mój katalog jest gotowy na Google Shopping?", (CONTENT,), None),
        ("Które produkty nie mają zdjęć?", (CONTENT,), None),
        ("Daj mi przegląd katalogu", (OVERVIEW,), None),
        ("Czy są duplikaty w moim feedzie?", (CONTENT,), None),
    ],
    "ru": [  # Russian
        ("Какие товары заканчиваются?", (AVAIL,), None),
        ("Где пробелы в садовой мебели?", (GAPS,), 4299),
        ("Пробелы в осветительных приборах", (GAPS,), 594),
        ("Какие цены на мои садовые стулья?", (PRICE,), 6828),
        ("Цены на уличные грили", (PRICE,), 2985),
        ("Каких цветов и материалов не хватает в садовой мебели для сидения?", (ATTR,), 6368),
        ("Какие бренды есть у конкурентов, которых нет у меня?", (BRAND,), None),
        ("Какие бренды я продаю в садовой мебели?", (BRAND,), 4299),  # not "Бренди" (Brandy), not all of Furniture
        ("Какие насосы нет в наличии?", (AVAIL,), 500096),
        ("Сколько садовых столов в наличии?", (AVAIL,), 2684),
        ("Готов ли мой каталог к Google Shopping?", (CONTENT,), None),
        ("Какие товары без изображений?", (CONTENT,), None),
        ("Дай обзор каталога", (OVERVIEW,), None),
        ("Есть ли дубликаты в фиде?", (CONTENT,), None),
        ("Какие размеры есть у садовых стульев?", (ATTR,), 6828),
    ],
}
# demand_gaps (issue 15), one question per language, appended so the lists above stay as they were
for _code, _question in {
    "de": ("Was sind die Bestseller bei Gartenmöbeln?", (DEMAND,), 4299),
    "nl": ("Wat zijn de bestsellers in tuinmeubelen?", (DEMAND,), 4299),
    "pt": ("Quais são os mais vendidos em móveis de jardim?", (DEMAND,), 4299),
    "es": ("¿Cuáles son los más vendidos en muebles de jardín?", (DEMAND,), 4299),
    "fr": ("Quelles sont les meilleures ventes en mobilier de jardin ?", (DEMAND,), 4299),
    "it": ("Quali sono i più venduti nei mobili da giardino?", (DEMAND,), 4299),
    "pl": ("Jakie są bestsellery w meblach ogrodowych?", (DEMAND,), 4299),
    "ru": ("Какие бестселлеры в садовой мебели?", (DEMAND,), 4299),
}.items():
    BY_LANGUAGE[_code].append(_question)
# a bare accented name, without one function word: the language whose Google names know it
BARE = [
    ("Gartenmöbeln?", (OVERVIEW,), 4299),
    ("muebles de jardín", (OVERVIEW,), 4299),
]
QUESTIONS = [(code, *q) for code, qs in BY_LANGUAGE.items() for q in qs] + [(None, *q) for q in BARE]


@pytest.mark.parametrize("code,question,skills,scope", QUESTIONS, ids=[q[1][:50] for q in QUESTIONS])
def test_questions_in_eight_languages(own, code, question, skills, scope):
    if code is not None:
        assert lexicon.detect(raw_tokens(question)) == code
    p = plan(question, own, TAX)
    assert p.skills == skills
    assert p.scope.taxonomy_id == scope
    assert not p.scope.unmatched and not any(n.startswith("No category matches") for n in p.notes)
    if scope is not None:
        assert p.scope.label == TAX.nodes[scope].name  # the stated scope: the English taxonomy name


def test_every_language_asks_for_every_skill():
    assert set(BY_LANGUAGE) == set(lexicon.LANGUAGES)
    for code, questions in BY_LANGUAGE.items():
        assert {s for _, skills, _ in questions for s in skills} == set(SKILLS), code


GAPS_IN = {
    "de": "Wo sind die Lücken bei {}?",
    "nl": "Waar zitten de gaten in {}?",
    "pt": "Onde estão as lacunas em {}?",
    "es": "¿Dónde están los huecos en {}?",
    "fr": "Où sont les lacunes dans {} ?",
    "it": "Dove sono le lacune in {}?",
    "pl": "Gdzie są luki w {}?",
    "ru": "Где пробелы в {}?",
}
# Localised names as merchants inflect them (plural, case, article, outdoor ~ garden) → the Google id
PHRASES = [
    ("de", "Gartenmöbeln", 4299),
    ("de", "Gartenstühlen", 6828),
    ("de", "Sonnenliegen", 4105),
    ("de", "Gartenbänken", 5044),
    ("de", "Gartentischen", 2684),
    ("de", "Terrassenmöbeln", 4299),
    ("de", "der Beleuchtung", 594),
    ("nl", "tuinmeubelen", 4299),
    ("nl", "buitenmeubelen", 4299),
    ("nl", "buitenstoelen", 6828),
    ("nl", "ligstoelen", 4105),
    ("nl", "tuintafels", 2684),
    ("nl", "de verlichting", 594),
    ("pt", "móveis de jardim", 4299),
    ("pt", "móvel para exterior", 4299),
    ("pt", "cadeiras para exteriores", 6828),
    ("pt", "cadeira de praia", 4105),
    ("pt", "mesas para exteriores", 2684),
    ("pt", "tapetes", 598),
    ("es", "muebles de jardín", 4299),
    ("es", "mobiliario de exterior", 4299),
    ("es", "silla de exterior", 6828),
    ("es", "tumbonas", 4105),
    ("es", "la tumbona", 4105),
    ("es", "alfombra", 598),
    ("es", "bancos de exterior", 5044),
    ("fr", "meubles de jardin", 4299),
    ("fr", "mobilier d'extérieur", 4299),
    ("fr", "chaise d'extérieur", 6828),
    ("fr", "bains de soleil", 4105),
    ("fr", "les tables d'extérieur", 2684),
    ("fr", "bancs d'extérieur", 5044),
    ("it", "mobili da giardino", 4299),
    ("it", "arredi per esterni", 4299),
    ("it", "sedia da esterno", 6828),
    ("it", "lettino prendisole", 4105),
    ("it", "tavolo da esterno", 2684),
    ("it", "panchine da esterno", 5044),
    ("pl", "meblach ogrodowych", 4299),
    ("pl", "meblach zewnętrznych", 4299),
    ("pl", "krzesłach ogrodowych", 6828),
    ("pl", "leżakach", 4105),
    ("pl", "stołach ogrodowych", 2684),
    ("pl", "ławkach ogrodowych", 5044),
    ("ru", "садовой мебели", 4299),
    ("ru", "уличной мебели", 4299),
    ("ru", "садовых стульях", 6828),
    ("ru", "креслах-шезлонгах", 4105),
    ("ru", "садовых столах", 2684),
    ("ru", "садовых скамьях", 5044),
    ("ru", "насосах", 500096),
]


@pytest.mark.parametrize("code,phrase,node_id", PHRASES, ids=[f"{c}-{p}" for c, p, _ in PHRASES])
def test_localised_category_phrases_resolve_to_the_english_names_node(own, code, phrase, node_id):
    question = GAPS_IN[code].format(phrase)
    assert lexicon.detect(raw_tokens(question)) == code
    p = plan(question, own, TAX)
    assert p.skills == (GAPS,) and p.scope.taxonomy_id == node_id
    assert plan(f"Where are the gaps in {TAX.nodes[node_id].name}?", own, TAX).scope.taxonomy_id == node_id


@pytest.mark.parametrize("code", lexicon.LANGUAGES)
def test_google_localised_names_resolve_like_their_english_names(code):
    """Property over the real localised taxonomy (every 20th node): the localised name as written
    resolves where its English name does, or to the node itself (where English is ambiguous)."""
    names = load_locale(lexicon.LOCALES[code])
    sample = [cid for cid in sorted(TAX.nodes)[::20] if cid in names]
    assert len(sample) > 250
    agree = 0
    for cid in sample:
        english = plan(f"Where are the gaps in {TAX.nodes[cid].name}?", None, TAX).scope.taxonomy_id
        local = plan(GAPS_IN[code].format(names[cid].split(" > ")[-1]), None, TAX).scope.taxonomy_id
        agree += local in (english, cid)
    assert agree / len(sample) >= 0.98


def _catalog(paths: list[str]):
    from agent.catalog.canonical import from_columns

    n = len(paths)
    return from_columns(
        {
            "product_key": list(range(n)),
            "title": [f"t{i}" for i in range(n)],
            "status": ["active"] * n,
            "category_path": paths,
            "price": [10.0 * (i + 1) for i in range(n)],
            "inventory_qty": [1] * n,
        }
    )


RU_SHOP = [
    "Насосы > Погружные насосы",
    "Насосы > Погружные насосы",
    "Насосы > Фонтанные насосы",
    "Фильтры > Фильтры для прудов",
    "Садовая мебель > Стулья",
]
DE_SHOP = ["Gartenmöbel > Stühle", "Gartenmöbel > Tische", "Grills & Zubehör > Gasgrills", "Beleuchtung"]


@pytest.mark.parametrize(
    "shop,question,skills,label,categories",
    [
        (
            RU_SHOP,
            "Какие насосы нет в наличии?",
            (AVAIL,),
            "Насосы",
            ("Насосы > Погружные насосы", "Насосы > Фонтанные насосы"),
        ),
        (RU_SHOP, "Пробелы в погружных насосах", (GAPS,), "Погружные насосы", ("Насосы > Погружные насосы",)),
        (RU_SHOP, "Цены на фильтры для прудов", (PRICE,), "Фильтры для прудов", ("Фильтры > Фильтры для прудов",)),
        (RU_SHOP, "Какие стулья нет в наличии?", (AVAIL,), "Стулья", ("Садовая мебель > Стулья",)),
        (RU_SHOP, "gaps in насосы", (GAPS,), "Насосы", ("Насосы > Погружные насосы", "Насосы > Фонтанные насосы")),
        (
            DE_SHOP,
            "Wo sind die Lücken bei Gartenmöbeln?",
            (GAPS,),
            "Gartenmöbel",
            ("Gartenmöbel > Stühle", "Gartenmöbel > Tische"),
        ),
        (DE_SHOP, "Welche Stühle sind nicht auf Lager?", (AVAIL,), "Stühle", ("Gartenmöbel > Stühle",)),
        (DE_SHOP, "Preise der Gasgrills", (PRICE,), "Gasgrills", ("Grills & Zubehör > Gasgrills",)),
        (DE_SHOP, "Lücken bei Tischen", (GAPS,), "Tische", ("Gartenmöbel > Tische",)),
    ],
)
def test_own_categories_in_the_merchants_language(shop, question, skills, label, categories):
    """A Russian shop's own categories are Russian: they match inflected, before Google's names."""
    p = plan(question, _catalog(shop), TAX)
    assert p.skills == skills
    assert p.scope.label == label and p.scope.merchant_categories == categories


@pytest.mark.parametrize(
    "question,skills,scope",
    [
        ("Welche Gartenstüle sind ausverkaft?", (AVAIL,), 6828),
        ("Où sont les lacuness dans les meubls de jardin ?", (GAPS,), 4299),
        ("Dove sono le lacune nei mobili da giardno?", (GAPS,), 4299),
    ],
)
def test_foreign_typos_are_corrected_like_english_ones(own, question, skills, scope):
    p = plan(question, own, TAX)
    assert p.skills == skills and p.scope.taxonomy_id == scope
    follow = plan("und die Preise?" if "Garten" in question else "et les prix ?", own, TAX, p.memory)
    assert follow.skills == (PRICE,) and follow.scope.taxonomy_id == scope  # remembered like a correct spelling


def test_an_unknown_foreign_category_is_said_as_written():
    p = plan("Lücken bei Raumschiffen", _catalog(DE_SHOP), TAX)
    assert p.skills == (GAPS,) and p.scope.unmatched == "raumschiffen" and p.scope.nearest
    assert p.notes[0].startswith("No category matches “raumschiffen”; nearest: ")


@pytest.mark.parametrize(
    "turns,expected",
    [
        (("Где пробелы в садовой мебели?", "а цены?", "и бренды?"), [(GAPS,), (PRICE,), (BRAND,)]),
        (
            ("Wo sind die Lücken bei Gartenmöbeln?", "und die Preise?", "und was ist ausverkauft?"),
            [(GAPS,), (PRICE,), (AVAIL,)],
        ),
        (("¿Dónde están los huecos en muebles de jardín?", "¿y los precios?"), [(GAPS,), (PRICE,)]),
        (("Où sont les lacunes dans les meubles de jardin ?", "et les prix ?"), [(GAPS,), (PRICE,)]),
    ],
)
def test_follow_ups_in_the_same_language_keep_the_scope(own, turns, expected):
    memory = None
    for question, skills in zip(turns, expected):
        p = plan(question, own, TAX, memory)
        memory = PlanMemory.from_dict(json.loads(json.dumps(p.memory.to_dict())))
        assert p.skills == skills and p.scope.taxonomy_id == 4299, question
    assert memory.scope_phrase == "outdoor furniture"  # remembered in English, re-read without the lexicon


@pytest.mark.parametrize(
    "question",
    sorted(
        {q for q, _, _ in ENGLISH_QUESTIONS}
        | {
            "and pricing?",
            "what about lighting?",
            "how about grills?",
            "same for sofas",
            "Where are the gaps in spaceships?",
            "hello there",
            "Is my catalog ready for Google Shopping?",
            "Which brands do competitors carry that I don't?",
        }
    ),
)
def test_english_questions_pass_the_lexicon_unchanged(question):
    words = raw_tokens(question)
    toks = [en_stem(w) for w in words]
    assert lexicon.detect(words) == "en"
    assert lexicon.to_english(words, toks, (), {}, TAX) == (words, toks)


@pytest.mark.parametrize(
    "code,forms",
    [
        ("de", ("Gartenmöbel", "Gartenmöbeln", "gartenmobel")),
        ("de", ("Lücke", "Lücken")),
        ("de", ("Preis", "Preise")),
        ("nl", ("meubel", "meubelen", "meubels")),
        ("nl", ("prijs", "prijzen")),
        ("pt", ("móvel", "móveis", "movel")),
        ("pt", ("cadeira", "cadeiras")),
        ("pt", ("promoção", "promoções")),
        ("es", ("mueble", "muebles")),
        ("es", ("jardín", "jardines", "jardin")),
        ("es", ("color", "colores")),
        ("fr", ("meuble", "meubles")),
        ("fr", ("extérieur", "extérieurs", "exterieur")),
        ("fr", ("local", "locaux")),
        ("it", ("mobile", "mobili")),
        ("it", ("sedia", "sedie")),
        ("it", ("marca", "marche")),
        ("pl", ("meble", "meblach", "meblami")),
        ("pl", ("ogrodowe", "ogrodowych")),
        ("pl", ("oświetlenie", "oświetleniu")),
        ("ru", ("мебель", "мебели", "мебелью")),
        ("ru", ("садовая", "садовой", "садовые", "садовых")),
        ("ru", ("насос", "насосы", "насосов", "насосах")),
        ("ru", ("освещение", "освещением", "освещения", "освещению")),
    ],
)
def test_stemming_is_light_and_symmetric_per_language(code, forms):
    assert len({lexicon.stem(f, code) for f in forms}) == 1
    assert lexicon.stem("Stuhl", "de") != lexicon.stem("Stück", "de") and len(lexicon.stem("ab", "pl")) == 2


def test_tokens_are_unicode_and_accents_fold_on_both_sides():
    assert raw_tokens("Wo sind die Lücken bei Gartenmöbeln?") == ["wo", "sind", "die", "lücken", "bei", "gartenmöbeln"]
    assert raw_tokens("Где пробелы в садовой мебели?") == ["где", "пробелы", "в", "садовой", "мебели"]
    assert raw_tokens("les chaises d'extérieur, l’assortiment") == ["les", "chaises", "extérieur", "assortiment"]
    assert raw_tokens("what's in my catalog? I don't know") == ["what", "in", "my", "catalog", "i", "dont", "know"]
    assert en_stem("gartenmöbel") == en_stem("Gartenmobel".lower()) and lexicon.fold("Łódź ŻÓŁW") == "lodz zolw"


def test_the_lexicon_costs_nothing_at_cold_start_and_builds_one_language_at_a_time():
    code = (
        "import sys, main\n"
        "assert 'agent.analysis.lexicon' not in sys.modules and 'agent.analysis.planner' not in sys.modules\n"
        "from agent.analysis import lexicon\n"
        "assert lexicon._taxonomy_index.cache_info().currsize == 0 and lexicon._lang.cache_info().currsize == 0\n"
        "from agent.analysis.planner import plan\n"
        "from agent.catalog.taxonomy import load\n"
        "plan('Where are the gaps in outdoor furniture?', None, load())\n"
        "assert lexicon._taxonomy_index.cache_info().currsize == 0 and lexicon._lang.cache_info().currsize == 0\n"
        "plan('Где пробелы в садовой мебели?', None, load())\n"
        "assert lexicon._taxonomy_index.cache_info().currsize == 1\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize(
    "first,follow,skills,scope",
    [
        ("Wo sind die Lücken bei Gartenmöbeln?", "und bei Sonnenliegen?", (GAPS,), 4105),
        # a whole-catalog follow-up resets the scope and keeps the question's skill, as in English (#10)
        ("Wo sind die Lücken bei Gartenmöbeln?", "und im ganzen Katalog?", (GAPS,), None),
        ("Где пробелы в садовой мебели?", "а по всему каталогу?", (GAPS,), None),
        ("Quais produtos estão sem estoque em móveis de jardim?", "e as cadeiras de praia?", (AVAIL,), 4105),
        ("¿Dónde están los huecos en muebles de jardín?", "¿y en todo el catálogo?", (GAPS,), None),
        ("Dove sono le lacune nei mobili da giardino?", "e i prezzi?", (PRICE,), 4299),
        ("Gdzie są luki w meblach ogrodowych?", "a ceny?", (PRICE,), 4299),
        ("Waar zitten de gaten in mijn buitenmeubelen?", "en de merken?", (BRAND,), 4299),
    ],
)
def test_foreign_follow_ups_switch_scope_or_skill_or_reset_like_english(own, first, follow, skills, scope):
    p2 = plan(follow, own, TAX, plan(first, own, TAX).memory)
    assert p2.skills == skills and p2.scope.taxonomy_id == scope


CORPUS = ROOT / "tests" / "corpus"


@pytest.mark.parametrize(
    "export,question,skills,label,category",
    [
        (
            "shopify/fluke-electrical-es.csv",
            "¿Qué productos no están disponibles en el cable eléctrico?",
            (AVAIL,),
            "Cables eléctricos",
            "Bricolaje > Suministros eléctricos > Cables eléctricos",
        ),
        (
            "shopify/fluke-electrical-es.csv",
            "Precios de los disyuntores",
            (PRICE,),
            "Disyuntores",
            "Bricolaje > Suministros eléctricos > Disyuntores",
        ),
        (
            "shopify/flexform-sportswear-es.csv",
            "¿Qué tallas faltan en las camisetas sin manga?",
            (ATTR,),
            "Camisetas sin mangas",
            "Ropa y accesorios > Prendas de vestir > Ropa deportiva > Tops deportivos > Camisetas sin mangas",
        ),
        (
            "magento/bigbuy-italian-catalog.csv",
            "Dove sono le lacune nei giochi per bambini?",
            (GAPS,),
            "Giochi Bambini",
            "Giochi Bambini",
        ),
        (
            "magento/bigbuy-italian-catalog.csv",
            "Quali prezzi in casa e giardino?",
            (PRICE,),
            "Casa Giardino",
            "Casa Giardino",
        ),
    ],
)
def test_real_exports_own_categories_answer_inflected_questions_in_their_language(
    export, question, skills, label, category
):
    """Real shops' own category names (Spanish, Italian), asked about with other inflections."""
    from agent.catalog.ingest import read_table_bytes

    path = CORPUS / export
    table, _ = read_table_bytes(path.read_bytes(), path.name, "corpus export")
    p = plan(question, table, TAX)
    assert p.skills == skills and category in p.scope.merchant_categories
    # the label is the own category's, or — now that the mapping places localised own categories
    # (#10 item 6: "Cables eléctricos" is Google's es-ES name of 2345, "Casa Giardino" is Home & Garden)
    # — the Google node that holds every product of that own category
    rows = [
        r for r in table.select(["category_path", "google_category_id"]).to_pylist() if r["category_path"] == category
    ]
    holds_all = (
        p.scope.taxonomy_id is not None
        and bool(rows)
        and all(
            r["google_category_id"] is not None and TAX.is_within(r["google_category_id"], p.scope.taxonomy_id)
            for r in rows
        )
    )
    assert p.scope.label == label or holds_all, p.scope.label


@pytest.mark.parametrize("code", lexicon.LANGUAGES)
def test_intent_words_do_not_collide_after_stemming(code):
    """After stemming, one foreign phrase means one English phrase, and no intent word is a function
    word of its language ("Fehler" must not become "fehlen", "Anbieter" not "anbieten")."""
    lang = lexicon._lang(code)
    meaning: dict[tuple[str, ...], str] = {}
    for phrase, english in lang.intents:
        assert meaning.setdefault(phrase, english) == english, (phrase, meaning[phrase], english)
        if len(phrase) == 1:
            assert phrase[0] not in lang.stop | lang.preps | lang.and_words, phrase
