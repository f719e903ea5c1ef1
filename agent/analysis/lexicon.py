"""Questions in the merchant's language, read by the English planner (issue 10 item 6).

Merchants ask in German, Dutch, Portuguese, Spanish, French, Italian, Polish and Russian, and their own
category names are in that language too. Rather than a second planner per language, this module
*translates the question's tokens into the English planner's tokens* and hands them back to `plan()`,
which then runs unchanged. One hook, one set of rules for skills and scope:

1. Language: Cyrillic letters mean Russian; otherwise each language scores the words of the question
   it knows (its function words and intent words, accents folded) against English's; English wins
   ties, so an English question never goes through here. No language → the tokens pass unchanged.
2. Normalising, symmetric on both sides: the planner's Unicode tokeniser (case folded), accents
   folded ("Lücken" ~ "lucken", "jardín" ~ "jardin", "й" ~ "и"), then a light per-language suffix
   stemmer (`stem`): one plural/case ending ("Gartenmöbeln" ~ "Gartenmöbel", "meblach" ~ "meble",
   "мебели" ~ "мебель", "muebles" ~ "mueble"). The same function reads the question, Google's
   localised category names and the merchant's own category names.
3. Intent words are ours (`INTENT_WORDS`): per language, foreign phrases for an English phrase the
   planner knows ("nicht auf Lager" → "out of stock", "marcas" → "brands", "пробелы" → "gaps"),
   matched longest first. Function words are dropped, except "and"/"also" words (kept as "and", so a
   follow-up "und die Preise?" is a follow-up) and prepositions (kept as "in", so "bei Raumschiffen"
   is still reported as a category that matches nothing; those that mean "for" — `FOR_WORDS` — are
   kept as "for", so "brinquedos para cães" is read like "toys for dogs").
4. Category phrases, longest first, the merchant's own category levels before Google's: a phrase that
   equals (after normalising, function words ignored, written together or apart) a level of the
   merchant's own categories becomes that level's own words, which the planner matches as it matches
   any own category; a phrase that equals a node of Google's localised taxonomy (`load_locale`, same
   ids as en-US) becomes the node's English name, so the planner resolves it exactly as it resolves
   the English name (same node, same preference for nodes the catalog has products in). Failing an
   exact name, the localised node with the fewest extra words that holds every word of the phrase is
   taken (nodes the catalog has products in first). Per language, words that mean "outdoor/garden"
   (and a few furniture words whose Google name differs from the everyday one, "muebles" ~
   "mobiliario") are tried as equivalents, like English's patio/garden/outdoor; in German and Dutch
   also as the first part of a compound ("Tuinmeubelen" ~ "Buitenmeubelen").
5. Answers stay in English: the stated scope is the English taxonomy name ("Outdoor Furniture"), or the
   merchant's own category name as written (Russian for a Russian shop); the scope phrase remembered
   for follow-ups is the English name (or the own name), which the planner re-reads without help.

Typos are corrected as the English planner corrects them (same thresholds), against the language's
intent words, Google's localised names and the shop's own levels. Words this module does not know pass
through as they are (English category names inside a German question still match). Cost: nothing here is built at import; a language's tables (its stems, its
localised taxonomy index, about 5,500 names) are built on its first question and cached; the
merchant's own levels are indexed once per catalog index and language.
"""

from __future__ import annotations

import difflib
import functools
import itertools
import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable, Mapping

from agent.catalog.cache import Cache

LANGUAGES = ("de", "nl", "pt", "es", "fr", "it", "pl", "ru")
LOCALES = {
    "de": "de-DE",
    "nl": "nl-NL",
    "pt": "pt-BR",
    "es": "es-ES",
    "fr": "fr-FR",
    "it": "it-IT",
    "pl": "pl-PL",
    "ru": "ru-RU",
}
MAX_PHRASE_WORDS = 6
MAX_VARIANTS = 48

# --- data: function words -------------------------------------------------------------------------------------
# Dropped from questions and from category names alike. Includes the words for "products", "items",
# "category", "catalog", "shop" (never a scope, as in English) and everyday verbs (have, sell, show).
STOPWORDS: dict[str, str] = {
    "de": "der die das den dem des ein eine einer einem einen eines ich du er sie es wir ihr mein meine meinem meinen "
    "meiner meines unser unsere unserem unseren unserer dein deine ist sind war waren bin bist sein seid habe hast "
    "hat haben hatte hatten wird werden wurde kann können könnte sollte sollten soll muss möchte will wo was wer wie "
    "welche welcher welches welchen welchem warum wann wieso gibt gib zeig zeige zeigen mir mich uns nicht kein "
    "keine keinen keiner noch schon nur sehr viel viele mehr am an auf aus ab bis mit ohne gegen durch nach seit "
    "um als ob oder aber dass denn so da hier dort dies diese dieser diesen dieses jener alle allen aller jede "
    "jeder jedes etwas man bitte produkt produkte produkten artikel artikeln sortiment kategorie kategorien "
    "katalog katalogs shop laden geschäft bereich bereiche bereichen warengruppe warengruppen sachen dinge "
    "verkaufe verkaufen führe führen biete bieten anbieten habe gerade aktuell derzeit momentan gut schlecht "
    "denn eigentlich wirklich überhaupt gerne hallo danke ja nein",
    "nl": "de het een den der ik jij je u hij zij ze wij we jullie mijn mijn onze ons uw jouw is zijn was waren ben bent "
    "heb hebt heeft hebben had hadden wordt worden werd kan kunnen kon zou zouden moet moeten mag wil willen waar "
    "wat wie hoe welke welk waarom wanneer er geef toon laat zien mij me ons niet geen nog al alleen zeer erg "
    "veel meer aan op uit af tot met zonder tegen door na sinds om als of maar dat dit deze die daar hier alle "
    "elk elke iets men alstublieft aub product producten artikel artikelen assortiment categorie categorieën "
    "catalogus winkel shop afdeling dingen spullen verkoop verkopen voer voeren bied bieden momenteel nu "
    "goed slecht eigenlijk echt hallo bedankt ja nee zit staat",
    "pt": "o a os as um uma uns umas eu tu ele ela nós nos vós eles elas meu minha meus minhas nosso nossa nossos "
    "nossas seu sua seus suas é são era eram sou está estão estou tenho tem têm temos ter tinha há foi será "
    "pode podem posso poderia deve devem quero onde que quem como qual quais quando porque por mostre mostrar "
    "me mim não nem ainda já só apenas muito muitos muita muitas mais ao aos à às com sem contra até desde "
    "se ou mas isso isto este esta estes estas esse essa esses essas aquele aquela todos todas cada algum "
    "alguma alguns algumas por favor produto produtos item itens artigo artigos sortimento categoria "
    "categorias catálogo loja seção departamento coisas vendo vende vendemos vender ofereço oferecer "
    "atualmente agora bom ruim olá obrigado sim estou",
    "es": "el la los las lo un una unos unas yo tú tu él ella nosotros nosotras vosotros ellos ellas mi mis nuestro "
    "nuestra nuestros nuestras su sus es son era eran soy estoy está están hay tengo tiene tienen tenemos "
    "tener tenía fue será puede pueden puedo podría debe deben quiero dónde donde qué que quién quien cómo "
    "como cuál cual cuáles cuales cuándo cuando por porque muéstrame muestra mostrar dime me mí no ni aún "
    "todavía ya solo sólo muy mucho muchos mucha muchas más al con sin contra hasta desde se o u pero eso "
    "esto este esta estos estas ese esa esos esas aquel aquella cada algún alguno alguna algunos algunas "
    "favor producto productos artículo artículos surtido categoría categorías catálogo tienda sección "
    "departamento cosas vendo vende vendemos vender ofrezco ofrecer actualmente ahora bueno malo hola "
    "gracias sí",
    "fr": "le la les l un une des du de d au aux je j tu il elle nous vous ils elles on mon ma mes notre nos votre "
    "vos son sa ses leur leurs est sont était étaient suis es sommes êtes ai as a avons avez ont avait sera "
    "peut peuvent puis pourrait doit doivent veux voudrais où que qu qui quoi comment quel quelle quels "
    "quelles quand pourquoi montrez montrer moi me m ne n pas plus ni encore déjà seulement très "
    "beaucoup avec sans contre jusqu depuis se s ou mais ce c cet cette ces ceci cela ça chaque quelque "
    "quelques tous toutes il y svp produit produits article articles assortiment catégorie catégories "
    "catalogue boutique magasin rayon rayons choses vends vend vendons vendre propose proposer propose "
    "actuellement maintenant bon mauvais bonjour merci oui non est-ce",
    "it": "il lo la i gli le l un uno una un' io tu lui lei noi voi loro mio mia miei mie nostro nostra nostri nostre "
    "suo sua suoi sue è sono era erano sei siamo siete ho hai ha abbiamo avete hanno aveva sarà può possono "
    "posso potrebbe deve devono voglio vorrei dove che chi cosa come quale quali quando perché mostra "
    "mostrami mostrare dimmi mi me non né ancora già solo molto molti molta molte più al allo alla ai agli "
    "alle col con senza contro fino da dal dallo dalla dai dagli dalle si o ma questo questa questi queste "
    "quello quella quelli quelle ogni qualche alcuni alcune per favore prodotto prodotti articolo articoli "
    "assortimento categoria categorie catalogo negozio reparto cose vendo vende vendiamo vendere offro "
    "offrire attualmente ora adesso buono cattivo ciao grazie sì c ci",
    "pl": "ja ty on ona ono my wy oni one mój moja moje moi mojego mojej moich moim moją moimi mojemu naszych nasz "
    "nasza nasze nasi naszym naszej naszego naszą swój swoja swoje swoich swoim jest są "
    "był była były jestem mam masz ma mamy macie mają miał będzie może mogą mogę mógłby powinien chcę gdzie "
    "co kto jak jaki jaka jakie jakich jakim który która które których dlaczego kiedy czy pokaż pokazać "
    "mi mnie nie ani jeszcze już tylko bardzo dużo wiele więcej do od ze bez przeciw przez po przy się lub "
    "albo ale że to ten ta te tego tej tych tym tam tu tutaj wszystkie każdy każda każde jakiś proszę "
    "produkt produkty produktów produktach towar towary towarów artykuł artykuły asortyment asortymencie "
    "kategoria kategorie kategorii katalog katalogu sklep sklepie dział rzeczy sprzedaję sprzedajemy "
    "oferuję oferować obecnie teraz dobry zły cześć dziękuję tak",
    "ru": "я ты он она оно мы вы они мой моя мое моё мои моих моем моём моей моего моему моими мою нашем наш наша "
    "наше наши наших нашей нашего нашим свой свои своих своей своем своём ваш ваши "
    "есть был была были быть буду будет будут является являются может могут могу мог должен хочу где что "
    "кто как какой какая какое какие каких каким каком который которая которое которые которых почему "
    "когда ли покажи покажите показать мне меня нас не ни ещё еще уже только очень много больше к ко от "
    "до из без против через после при за или либо но что это этот эта эти этого этой этих тот та те там "
    "тут здесь каждый каждая каждое какой-то пожалуйста товар товары товаров товарах продукт продукты "
    "продукция продукции позиции позиций ассортимент ассортименте категория категории категорий каталог "
    "каталоге магазин магазине раздел разделе вещи продаю продаем продаём предлагаю сейчас сегодня "
    "хорошо плохо привет спасибо да у меня",
}
# Kept as "and" (so "und die Preise?" is a follow-up, "Tische und Stühle" one run) and as "in".
AND_WORDS = {
    "de": "und auch",
    "nl": "en ook",
    "pt": "e também",
    "es": "y e también",
    "fr": "et aussi",
    "it": "e ed anche",
    "pl": "i a oraz też także",
    "ru": "и а также тоже",
}
PREPOSITIONS = {
    "de": "in im bei beim für zu zum zur über unter innerhalb von vom",
    "nl": "in bij voor van over binnen onder",
    "pt": "em no na nos nas para de do da dos das sobre entre dentro",
    "es": "en para de del sobre entre dentro",
    "fr": "dans en pour sur parmi chez côté",
    "it": "in nel nella nei nelle negli nello per di del della dei delle degli su sul sulla sui tra fra",
    "pl": "w we dla o na wśród z",
    "ru": "в во для по о об среди на с со",
}
# The prepositions that mean "for" (kept as "for", not "in", right after a category name): the planner
# reads "toys for dogs" as Dog Toys, so "brinquedos para cães", "Spielzeug für Hunde", "игрушки для
# собак" must reach it with their "for". Elsewhere they introduce a scope and stay "in".
FOR_WORDS = {"de": "für", "nl": "voor", "pt": "para", "es": "para", "fr": "pour", "it": "per", "pl": "dla", "ru": "для"}

# --- data: intent words ---------------------------------------------------------------------------------------
# {language: {English phrase the planner knows: "foreign phrase | foreign phrase | …"}}. Several English
# targets per skill where the planner tells them apart ("missing" is weak, "images" is content quality).
INTENT_WORDS: dict[str, dict[str, str]] = {
    "de": {
        "gaps": "lücke | lücken | sortimentslücken | sortimentslücke | unterrepräsentiert | schwachstellen | "
        "schwachstelle | dünn | schwach | schwächen | chancen | potenzial | zu wenig | zu wenige | lückenhaft",
        "subcategories": "unterkategorie | unterkategorien",
        "expand": "hinzufügen | ergänzen | erweitern | ausbauen | aufnehmen",
        "missing": "fehlt | fehlen | fehlende | fehlenden | vermisse",
        "competitors": "wettbewerber | wettbewerb | konkurrenz | konkurrenten | mitbewerber | vergleich | vergleichen | "
        "markt | referenz",
        "coverage": "abgedeckt",
        "price": "preis | preise | preisen | preisgestaltung | preisleiter | preisstufen | preisstufe | preisspanne | "
        "preisklasse | preisklassen | preisniveau | preislage | preispunkte | günstig | günstigste | billig | "
        "billigste | teuer | teuerste | einstiegspreis | einstieg | einsteiger | kosten | kostet | rabatt | "
        "rabatte | reduziert | preisnachlass | luxus | preisverteilung | preisstruktur | preisgefüge | "
        "preisbereich | preisspektrum",
        "premium": "premium | hochwertig | hochpreisig",
        "attributes": "attribut | attribute | merkmal | merkmale | eigenschaft | eigenschaften | farbe | farben | "
        "material | materialien | größe | größen | stoff | stoffe | maße | abmessungen | spezifikationen | "
        "ausführungen",
        "brands": "marke | marken | hersteller | lieferant | lieferanten | markenhersteller",
        "out of stock": "nicht auf lager | nicht vorrätig | nicht mehr verfügbar | ausverkauft | nicht verfügbar | "
        "nicht lieferbar | "
        "vergriffen | nicht bestellbar | nicht kaufbar | nicht erhältlich",
        "in stock": "auf lager | vorrätig | lieferbar | erhältlich",
        "stock": "lager | lagerbestand | lagerbestände | bestand | bestände | verfügbarkeit | rückstand | "
        "lieferrückstand | vorbestellung | vorbestellbar | nachbestellen | nachschub | menge | mengen",
        "available": "verfügbar",
        "quality": "qualität | datenqualität | inhalt | inhalte | vollständigkeit | vollständig | unvollständig | "
        "fehler | fehlerhaft | abgelehnt | duplikate | doppelt | ungültig | ungültige | bereit für | "
        "korrigieren | probleme | mängel | barcode | barcodes",
        "images": "bild | bilder | foto | fotos | produktbilder",
        "descriptions": "beschreibung | beschreibungen | produktbeschreibungen",
        "titles": "titel | produkttitel",
        "feed": "produktfeed | produktdatenfeed",
        "overview": "überblick | übersicht | zusammenfassung | zusammenfassen | statistik | statistiken | "
        "aufschlüsselung | kennzahlen | was verkaufe ich | wie groß",
        "how many": "wie viele | wie viel | anzahl",
        "which categories": "welche kategorien | welche warengruppen",
        "overall": "gesamten katalog | ganzen katalog | ganze katalog | gesamtes sortiment | ganzen sortiment | "
        "insgesamt | gesamt",
    },
    "nl": {
        "gaps": "gat | gaten | hiaat | hiaten | lacune | lacunes | leemte | leemtes | zwak | zwakke plekken | dun | "
        "kansen | ondervertegenwoordigd | te weinig",
        "subcategories": "subcategorie | subcategorieën",
        "expand": "toevoegen | uitbreiden | aanvullen",
        "missing": "ontbreekt | ontbreken | ontbrekende | mis | mist",
        "competitors": "concurrent | concurrenten | concurrentie | vergelijken | vergelijking | markt | referentie",
        "coverage": "dekking",
        "price": "prijs | prijzen | prijsstelling | prijsladder | prijsklasse | prijsklassen | prijsniveau | prijspunten | "
        "goedkoop | goedkoopste | duur | duurste | instap | instapniveau | instapprijs | kosten | kost | "
        "korting | kortingen | afgeprijsd | luxe | prijsverdeling | prijsstructuur",
        "premium": "premium",
        "attributes": "attribuut | attributen | kenmerk | kenmerken | eigenschap | eigenschappen | kleur | kleuren | "
        "materiaal | materialen | maat | maten | afmetingen | stof | stoffen | specificaties",
        "brands": "merk | merken | fabrikant | fabrikanten | leverancier | leveranciers",
        "out of stock": "niet op voorraad | uitverkocht | niet beschikbaar | niet leverbaar | uit voorraad",
        "in stock": "op voorraad | leverbaar",
        "stock": "voorraad | voorraden | beschikbaarheid | nabestelling | nabestellingen | bijbestellen | "
        "voorbestelling | hoeveelheid | hoeveelheden",
        "available": "beschikbaar",
        "quality": "kwaliteit | datakwaliteit | inhoud | volledigheid | volledig | onvolledig | fout | fouten | "
        "afgekeurd | duplicaten | dubbel | ongeldig | ongeldige | klaar voor | problemen | barcode | barcodes",
        "images": "afbeelding | afbeeldingen | foto | fotos | foto's",
        "descriptions": "beschrijving | beschrijvingen | omschrijving | omschrijvingen",
        "titles": "titel | titels",
        "overview": "overzicht | samenvatting | samenvatten | statistieken | uitsplitsing | wat verkoop ik | hoe groot",
        "how many": "hoeveel | aantal",
        "which categories": "welke categorieën",
        "overall": "hele catalogus | gehele catalogus | hele assortiment | in totaal | totaal",
    },
    "pt": {
        "gaps": "lacuna | lacunas | falha | falhas | buraco | buracos | brecha | brechas | fraco | fracos | pontos fracos | "
        "oportunidade | oportunidades | muito poucos | sub representado",
        "subcategories": "subcategoria | subcategorias",
        "expand": "adicionar | acrescentar | expandir | ampliar",
        "missing": "falta | faltam | faltando | ausente | ausentes",
        "competitors": "concorrente | concorrentes | concorrência | comparar | comparação | mercado | referência",
        "price": "preço | preços | precificação | barato | baratos | mais barato | caro | caros | mais caro | entrada | "
        "de entrada | custo | custos | custa | custam | quanto custa | quanto custam | desconto | descontos | "
        "promoção | promoções | faixa de preço | faixas de preço | luxo",
        "premium": "premium",
        "attributes": "atributo | atributos | característica | características | cor | cores | material | materiais | "
        "tamanho | tamanhos | tecido | tecidos | dimensões | medidas | especificações",
        "brands": "marca | marcas | fabricante | fabricantes | fornecedor | fornecedores",
        "out of stock": "sem estoque | fora de estoque | não estão disponíveis | não está disponível | "
        "não há estoque | esgotado | esgotados | esgotada | esgotadas | indisponível | "
        "indisponíveis | não disponível | não disponíveis | sem stock",
        "in stock": "em estoque | em stock",
        "stock": "estoque | estoques | stock | inventário | disponibilidade | encomenda | pré venda | "
        "quantidade | quantidades",
        "available": "disponível | disponíveis",
        "quality": "qualidade | conteúdo | completude | completo | completos | incompleto | incompletos | erro | erros | "
        "reprovado | reprovados | duplicado | duplicados | inválido | inválidos | pronto para | problemas | "
        "código de barras | códigos de barras",
        "images": "imagem | imagens | foto | fotos",
        "descriptions": "descrição | descrições",
        "titles": "título | títulos",
        "overview": "visão geral | resumo | resumir | estatística | estatísticas | panorama | o que vendo",
        "how many": "quantos | quantas | número de",
        "which categories": "quais categorias",
        "overall": "catálogo inteiro | todo o catálogo | catálogo todo | tudo | geral | no geral",
    },
    "es": {
        "gaps": "hueco | huecos | laguna | lagunas | carencia | carencias | brecha | brechas | débil | "
        "débiles | puntos débiles | oportunidad | oportunidades | muy pocos | infrarrepresentado",
        "subcategories": "subcategoría | subcategorías",
        "expand": "añadir | agregar | ampliar | expandir",
        "missing": "falta | faltan | faltantes | ausente | ausentes",
        "competitors": "competidor | competidores | competencia | comparar | comparación | mercado | referencia",
        "price": "precio | precios | barato | baratos | más barato | caro | caros | más caro | de entrada | "
        "gama de entrada | "
        "coste | costes | costo | cuesta | descuento | descuentos | rebaja | rebajas | oferta | ofertas | "
        "rango de precios | lujo",
        "premium": "premium | alta gama | gama alta",
        "attributes": "atributo | atributos | característica | características | color | colores | material | "
        "materiales | talla | tallas | tamaño | tamaños | tela | telas | medidas | dimensiones | "
        "especificaciones",
        "brands": "marca | marcas | fabricante | fabricantes | proveedor | proveedores",
        "out of stock": "sin stock | fuera de stock | no están disponibles | no está disponible | no hay stock | "
        "agotado | agotados | agotada | agotadas | no disponible | "
        "no disponibles | sin existencias",
        "in stock": "en stock | en existencia",
        "stock": "stock | existencias | inventario | disponibilidad | reposición | bajo pedido | reserva | cantidad | "
        "cantidades",
        "available": "disponible | disponibles",
        "quality": "calidad | contenido | completitud | completo | completos | incompleto | incompletos | error | errores | "
        "rechazado | rechazados | duplicado | duplicados | inválido | inválidos | listo para | problemas | "
        "código de barras | códigos de barras",
        "images": "imagen | imágenes | foto | fotos",
        "descriptions": "descripción | descripciones",
        "titles": "título | títulos",
        "overview": "resumen | visión general | resumir | estadística | estadísticas | desglose | panorama | qué vendo",
        "how many": "cuántos | cuántas | número de",
        "which categories": "qué categorías | cuáles categorías",
        "overall": "todo el catálogo | catálogo completo | catálogo entero | todo | en general",
    },
    "fr": {
        "gaps": "lacune | lacunes | trou | trous | faible | faibles | points faibles | point faible | "
        "opportunité | opportunités | trop peu | sous représenté | sous représentés",
        "subcategories": "sous catégorie | sous catégories",
        "expand": "ajouter | élargir | étendre | compléter",
        "missing": "manque | manquent | manquant | manquants | manquantes",
        "competitors": "concurrent | concurrents | concurrence | comparer | comparaison | marché | référence",
        "coverage": "taux de couverture",
        "price": "prix | tarif | tarifs | tarification | bon marché | pas cher | moins cher | cher | chers | "
        "entrée de gamme | coût | coûts | coûte | remise | remises | promotion | promotions | soldes | "
        "gamme de prix | fourchette de prix | luxe",
        "premium": "premium | haut de gamme",
        "attributes": "attribut | attributs | caractéristique | caractéristiques | couleur | couleurs | matière | "
        "matières | matériau | matériaux | taille | tailles | tissu | tissus | dimensions | spécifications",
        "brands": "marque | marques | fabricant | fabricants | fournisseur | fournisseurs",
        "out of stock": "en rupture | rupture | ne sont pas disponibles | n'est pas disponible | rupture de stock | "
        "ruptures | épuisé | épuisés | épuisée | épuisées | "
        "indisponible | indisponibles | non disponible | non disponibles | pas disponible | plus disponible",
        "in stock": "en stock",
        "stock": "stock | stocks | inventaire | disponibilité | réassort | réapprovisionnement | précommande | "
        "quantité | quantités",
        "available": "disponible | disponibles",
        "quality": "qualité | contenu | complétude | complet | complets | incomplet | incomplets | erreur | erreurs | "
        "refusé | refusés | doublon | doublons | invalide | invalides | prêt pour | problèmes | "
        "code barre | codes barres | code barres",
        "images": "image | images | photo | photos",
        "descriptions": "description | descriptions",
        "titles": "titre | titres",
        "feed": "flux | flux produits | flux de produits",
        "overview": "aperçu | vue d'ensemble | résumé | résumer | statistique | statistiques | répartition | panorama",
        "how many": "combien | nombre de",
        "which categories": "quelles catégories",
        "overall": "tout le catalogue | catalogue entier | catalogue complet | globalement | en général",
    },
    "it": {
        "gaps": "lacuna | lacune | buco | buchi | mancanze | carenze | debole | deboli | punti deboli | punto debole | "
        "opportunità | troppo pochi | troppo poche | sottorappresentato",
        "subcategories": "sottocategoria | sottocategorie",
        "expand": "aggiungere | ampliare | espandere | integrare",
        "missing": "manca | mancano | mancante | mancanti",
        "competitors": "concorrente | concorrenti | concorrenza | confrontare | confronto | mercato | riferimento",
        "coverage": "grado di copertura",
        "price": "prezzo | prezzi | economico | economici | più economico | caro | cari | costoso | costosi | "
        "fascia bassa | fascia di prezzo | fasce di prezzo | entry level | ingresso | costo | costi | costa | "
        "sconto | sconti | saldi | promozione | promozioni | lusso",
        "premium": "premium | fascia alta | alta gamma",
        "attributes": "attributo | attributi | caratteristica | caratteristiche | colore | colori | materiale | "
        "materiali | taglia | taglie | misura | misure | tessuto | tessuti | dimensioni | specifiche",
        "brands": "marca | marche | marchio | marchi | produttore | produttori | fornitore | fornitori",
        "out of stock": "esaurito | esauriti | non sono disponibili | non è disponibile | esaurita | esaurite | "
        "non disponibile | non disponibili | fuori stock | "
        "non in magazzino | non in stock",
        "in stock": "in magazzino | in stock | disponibili in magazzino",
        "stock": "magazzino | scorte | scorta | giacenza | giacenze | disponibilità | riassortimento | preordine | "
        "quantità",
        "available": "disponibile | disponibili",
        "quality": "qualità | contenuto | contenuti | completezza | completo | completi | incompleto | incompleti | "
        "errore | errori | rifiutato | rifiutati | duplicato | duplicati | non valido | non validi | "
        "pronto per | problemi | codice a barre | codici a barre",
        "images": "immagine | immagini | foto",
        "descriptions": "descrizione | descrizioni",
        "titles": "titolo | titoli",
        "overview": "panoramica | riepilogo | sintesi | riassunto | riassumere | statistica | statistiche | cosa vendo",
        "how many": "quanti | quante | numero di",
        "which categories": "quali categorie",
        "overall": "intero catalogo | tutto il catalogo | catalogo completo | tutto | in generale | complessivamente",
    },
    "pl": {
        "gaps": "luka | luki | luk | brak w ofercie | słaby | słabe | słabe punkty | słabe strony | okazje | "
        "szanse | za mało | niedoreprezentowane",
        "subcategories": "podkategoria | podkategorie | podkategorii",
        "expand": "dodać | dodac | rozszerzyć | poszerzyć | uzupełnić",
        "missing": "brakuje | brakujące | brakujących | brak",
        "competitors": "konkurencja | konkurencji | konkurent | konkurenci | konkurentów | porównaj | porównanie | "
        "porównać | rynek | rynku",
        "coverage": "pokrycie",
        "price": "cena | ceny | cen | cenach | cenowy | cenowe | cenowych | tani | tanie | najtańsze | najtańszy | "
        "drogi | drogie | najdroższe | najdroższy | podstawowe | koszt | koszty | kosztuje | rabat | rabaty | "
        "promocja | promocje | przedział cenowy | luksusowe",
        "premium": "premium",
        "attributes": "atrybut | atrybuty | cecha | cechy | właściwości | kolor | kolory | kolorów | materiał | "
        "materiały | rozmiar | rozmiary | rozmiarów | tkanina | tkaniny | wymiary | specyfikacja | "
        "specyfikacje",
        "brands": "marka | marki | marek | producent | producenci | producentów | dostawca | dostawcy | dostawców",
        "out of stock": "brak w magazynie | nie jest dostępny | brak na stanie | nie ma w magazynie | "
        "nie ma na stanie | wyprzedane | "
        "wyprzedany | niedostępne | niedostępny | niedostępnych | nie są dostępne | niedostępna",
        "in stock": "w magazynie | na stanie | dostępne w magazynie",
        "stock": "magazyn | stan magazynowy | stany magazynowe | zapas | zapasy | dostępność | dostępności | "
        "przedsprzedaż | ilość | ilości",
        "available": "dostępne | dostępny | dostępna",
        "quality": "jakość | jakości | treść | treści | kompletność | kompletny | kompletne | niekompletne | "
        "niekompletny | błąd | błędy | błędów | odrzucone | duplikaty | nieprawidłowe | nieprawidłowy | "
        "gotowy na | gotowe na | problemy | kod kreskowy | kody kreskowe",
        "images": "zdjęcie | zdjęcia | zdjęć | obraz | obrazy | obrazów | grafika",
        "descriptions": "opis | opisy | opisów",
        "titles": "tytuł | tytuły | tytułów | nazwy",
        "feed": "feed | feedzie | feedu | plik produktowy",
        "overview": "przegląd | podsumowanie | podsumuj | statystyka | statystyki | zestawienie | co sprzedaję",
        "how many": "ile | liczba",
        "which categories": "jakie kategorie | które kategorie",
        "overall": "cały katalog | całym katalogu | całej ofercie | cała oferta | ogólnie",
    },
    "ru": {
        "gaps": "пробел | пробелы | пробелов | пробелах | пропуски | пропусков | дыры | дыр | слабые места | слабое место | "
        "слабые | слабо | возможности | возможностей | слишком мало | недостаточно | ниши",
        "subcategories": "подкатегория | подкатегории | подкатегорий",
        "expand": "добавить | расширить | пополнить",
        "missing": "не хватает | недостает | недостаёт | отсутствует | отсутствующие | нехватка",
        "competitors": "конкурент | конкуренты | конкурентов | конкурентами | конкуренция | сравнить | сравнение | "
        "рынок | рынке",
        "price": "цена | цены | цен | ценам | ценах | ценовой | ценовые | стоимость | дешевый | дешевые | дешёвые | "
        "дешевле | самые дешевые | дорогой | дорогие | дороже | бюджетный | бюджетные | скидка | скидки | "
        "скидок | акции | ценовой диапазон | ценовые сегменты | ценообразование | люкс",
        "premium": "премиум | премиальные | премиальный",
        "attributes": "атрибут | атрибуты | атрибутов | характеристика | характеристики | свойства | цвет | цвета | "
        "цветов | материал | материалы | материалов | размер | размеры | размеров | ткань | габариты",
        "brands": "бренд | бренды | брендов | марка | марки | производитель | производители | производителей | "
        "поставщик | поставщики | поставщиков",
        "out of stock": "нет в наличии | не доступны | не доступно | отсутствуют в наличии | нет на складе | "
        "закончились | распроданы | "
        "распродано | недоступны | недоступно | не в наличии",
        "in stock": "в наличии | на складе",
        "stock": "наличие | наличия | склад | складе | остатки | остатков | запасы | запас | доступность | "
        "предзаказ | количество | заканчиваются | заканчивается | на исходе",
        "available": "доступны | доступно | доступен",
        "quality": "качество | качества | контент | полнота | заполненность | ошибки | ошибок | ошибка | отклонены | "
        "отклонено | дубликаты | дубли | неверные | неправильные | готов к | готовы к | проблемы | "
        "штрихкод | штрихкоды | штрих код",
        "images": "изображение | изображения | изображений | фото | фотографии | картинки",
        "descriptions": "описание | описания | описаний",
        "titles": "заголовок | заголовки | названия",
        "feed": "фид | фиде | фида | фиду | товарный фид",
        "overview": "обзор | сводка | резюме | статистика | общая картина | что я продаю",
        "how many": "сколько | количество позиций",
        "which categories": "какие категории",
        "overall": "весь каталог | всему каталогу | всего каталога | весь ассортимент | все | всё | в целом",
    },
}

# Words for "outdoor / garden / patio" (first group; alone they never pick a category) and a few
# furniture words whose Google name differs from the everyday one, tried as equivalents, like the
# English planner's patio/garden/outdoor.
EQUIVALENTS: dict[str, tuple[str, ...]] = {
    "de": ("garten außen draußen terrasse terrassen balkon outdoor",),
    "nl": ("tuin buiten terras balkon outdoor",),
    "pt": ("exterior exteriores externo externa externos externas jardim varanda área externa", "móveis mobília"),
    "es": ("exterior exteriores jardín terraza patio", "mueble muebles mobiliario"),
    "fr": ("jardin extérieur extérieurs terrasse patio", "meubles mobilier"),
    "it": ("esterno esterni esterna esterne giardino terrazzo", "mobili arredi arredo"),
    "pl": ("ogrodowy ogrodowe ogrodowych zewnętrzny zewnętrzne tarasowy tarasowe balkonowy",),
    "ru": ("садовый садовая садовые уличный уличная уличные наружный дачный дачная",),
}
COMPOUNDING = ("de", "nl")  # languages that write "garden furniture" as one word


# --- normalising ------------------------------------------------------------------------------------------------
_EXTRA_FOLD = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "æ": "ae", "œ": "oe"})
_COMBINING = dict.fromkeys(c for c in range(0x300, 0x370))  # combining diacritical marks, deleted


@functools.lru_cache(maxsize=65536)
def fold(word: str) -> str:
    """Case and accents folded ("Lücken" → "lucken", "Łuki" → "luki", "й" → "и"): symmetric on both sides."""
    w = word.casefold()
    if w.isascii():
        return w
    return unicodedata.normalize("NFKD", w.translate(_EXTRA_FOLD)).translate(_COMBINING)


# (suffix, replacement), longest first per language; one is removed, leaving at least MIN_STEM letters.
_SUFFIXES: dict[str, tuple[tuple[str, str], ...]] = {
    "de": (("ern", ""), ("em", ""), ("en", ""), ("er", ""), ("es", ""), ("e", ""), ("n", ""), ("s", "")),
    "nl": (("eren", ""), ("heden", "heid"), ("en", ""), ("es", ""), ("'s", ""), ("s", ""), ("e", "")),
    "pt": (
        ("oes", "a"),
        ("aes", "a"),
        ("eis", "el"),
        ("ais", "al"),
        ("ns", "m"),
        ("es", ""),
        ("as", ""),
        ("os", ""),
        ("s", ""),
        ("a", ""),
        ("o", ""),
        ("e", ""),
    ),
    "es": (("ces", "z"), ("es", ""), ("as", ""), ("os", ""), ("s", ""), ("a", ""), ("o", ""), ("e", "")),
    "fr": (("eaux", "eau"), ("aux", "al"), ("es", ""), ("x", ""), ("s", ""), ("e", "")),
    "it": (("chi", "c"), ("ghi", "g"), ("che", "c"), ("ghe", "g"), ("a", ""), ("e", ""), ("i", ""), ("o", "")),
    "pl": (
        ("owie", ""),
        ("ami", ""),
        ("ach", ""),
        ("ego", ""),
        ("emu", ""),
        ("ych", ""),
        ("ymi", ""),
        ("ich", ""),
        ("imi", ""),
        ("iem", ""),
        ("ow", ""),
        ("om", ""),
        ("ie", ""),
        ("iu", ""),
        ("a", ""),
        ("e", ""),
        ("i", ""),
        ("o", ""),
        ("u", ""),
        ("y", ""),
    ),
    # folded forms: "й" is "и" here ("садовый" → "садовыи")
    "ru": (
        ("иями", ""),
        ("иям", ""),
        ("иях", ""),
        ("ием", ""),
        ("ого", ""),
        ("его", ""),
        ("ому", ""),
        ("ему", ""),
        ("ыми", ""),
        ("ими", ""),
        ("ьев", ""),
        ("ами", ""),
        ("ями", ""),
        ("ая", ""),
        ("яя", ""),
        ("ое", ""),
        ("ее", ""),
        ("ые", ""),
        ("ие", ""),
        ("ыи", ""),
        ("ии", ""),
        ("ои", ""),
        ("ую", ""),
        ("юю", ""),
        ("ых", ""),
        ("их", ""),
        ("ья", ""),
        ("ье", ""),
        ("ах", ""),
        ("ях", ""),
        ("ов", ""),
        ("ев", ""),
        ("ам", ""),
        ("ям", ""),
        ("ом", ""),
        ("ем", ""),
        ("еи", ""),
        ("ью", ""),
        ("ию", ""),
        ("ия", ""),
        ("ь", ""),
        ("ы", ""),
        ("и", ""),
        ("а", ""),
        ("я", ""),
        ("о", ""),
        ("е", ""),
        ("у", ""),
        ("ю", ""),
    ),
}
MIN_STEM = 3
# Words kept whole, as the English planner keeps "glass": their ending is not an inflection here, and
# cutting it would make them another intent word ("Fehler", errors, would become "fehlen", missing).
_KEEP = {"de": frozenset({"fehler"})}
# A final "s" is a plural only after these letters ("Grills", "tafels", "Sofas"; not "Preis", "prijs", "Haus")
_S_AFTER = {"de": set("bdfghklmnrtao"), "nl": set("bcdfghklmnpqrtvwxz")}


@functools.lru_cache(maxsize=65536)
def stem(word: str, lang: str) -> str:
    """Light stemming for `lang`: accents folded, then one plural/case ending removed.

    Deliberately light (one ending, never below three letters): it only has to make the inflected and
    the dictionary form of the same word meet, and it is applied to questions and names alike.
    """
    w = fold(word)
    if w in _KEEP.get(lang, ()):
        return w
    for size, table in _suffix_tables(lang):
        suffix = w[-size:]
        repl = table.get(suffix) if len(w) >= size else None
        if repl is None or len(w) - size + len(repl) < MIN_STEM:
            continue
        if suffix == "s" and lang in _S_AFTER and w[-2:-1] not in _S_AFTER[lang]:
            continue
        w = w[: len(w) - size] + repl
        if lang == "nl" and w[-1:] in "zv" and len(w) > MIN_STEM:  # prijzen ~ prijs, kleven ~ kleef
            w = w[:-1] + ("s" if w[-1] == "z" else "f")
        elif lang == "ru" and w.endswith("ь") and len(w) > MIN_STEM:  # стульях ~ стулья ~ стул
            w = w[:-1]
        return w
    if lang == "ru" and len(w) >= 5 and w[-2:] in ("ок", "ек") and w[-3] not in _RU_VOWELS:
        # the genitive plural's fleeting vowel: "кроссовок" ~ "кроссовки", "вилок" ~ "вилки", "носок" ~ "носки"
        return w[:-2] + "к"
    return w


_RU_VOWELS = frozenset("аеиоуыэюя")


@functools.lru_cache(maxsize=None)
def _suffix_tables(lang: str) -> tuple[tuple[int, dict[str, str]], ...]:
    """`_SUFFIXES[lang]` by length, longest first: one dict lookup per length instead of one test per ending."""
    by_size: dict[int, dict[str, str]] = {}
    for suffix, repl in _SUFFIXES.get(lang, ()):
        by_size.setdefault(len(suffix), {}).setdefault(suffix, repl)
    return tuple(sorted(by_size.items(), reverse=True))


def _words(text: str) -> list[str]:
    from agent.analysis.vocabulary import raw_tokens

    return raw_tokens(text)


def _split(text: str) -> list[str]:
    return [p.strip() for p in text.split("|") if p.strip()]


# --- per-language tables (built on first use) ---------------------------------------------------------------
@dataclass
class _Lang:
    code: str
    stop: frozenset[str]  # stems
    and_words: frozenset[str]
    preps: frozenset[str]
    intents: list[tuple[tuple[str, ...], str]]  # (foreign stems, English phrase), longest first
    intents_by_first: dict[str, list[tuple[tuple[str, ...], str]]]  # the same, by first stem
    equiv: dict[str, tuple[str, ...]]  # stem -> equivalent stems
    outdoor: frozenset[str]  # stems of the first group: "garden", "outdoor" (never a scope alone)
    prefixes: tuple[tuple[str, ...], ...]  # folded compound heads per group (de, nl)
    for_words: frozenset[str] = frozenset()  # the prepositions among `preps` that mean "for"


@functools.lru_cache(maxsize=None)
def _lang(code: str) -> _Lang:
    def stems(text: str) -> set[str]:
        return {stem(w, code) for w in _words(text)}

    stop = stems(STOPWORDS[code])
    and_words = stems(AND_WORDS[code])
    preps = stems(PREPOSITIONS[code])
    intents: list[tuple[tuple[str, ...], str]] = []
    for english, phrases in INTENT_WORDS[code].items():
        for phrase in _split(phrases):
            toks = tuple(stem(w, code) for w in _words(phrase))
            if toks:
                intents.append((toks, english))
    intents.sort(key=lambda x: -len(x[0]))
    equiv: dict[str, tuple[str, ...]] = {}
    prefixes = []
    for group in EQUIVALENTS.get(code, ()):
        members = tuple(dict.fromkeys(stem(w, code) for w in _words(group)))
        for m in members:
            equiv[m] = tuple(x for x in members if x != m)
        prefixes.append(tuple(dict.fromkeys(fold(w) for w in _words(group))))
    outdoor = frozenset(stem(w, code) for w in _words(EQUIVALENTS[code][0])) if code in EQUIVALENTS else frozenset()
    by_first: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for toks, english in intents:
        by_first.setdefault(toks[0], []).append((toks, english))
    return _Lang(
        code,
        frozenset(stop - and_words - preps),
        frozenset(and_words),
        frozenset(preps - and_words),
        intents,
        by_first,
        equiv,
        outdoor,
        tuple(prefixes) if code in COMPOUNDING else (),
        frozenset(stems(FOR_WORDS[code]) & (preps - and_words)),
    )


_WORD = re.compile(r"[^\W_]+")


@functools.lru_cache(maxsize=None)
def _markers(code: str) -> frozenset[str]:
    """Folded words that say "this is the language": its function and intent words (cheap: every
    English question is scored against these, so they are built without stemming)."""
    texts = [STOPWORDS[code], AND_WORDS[code], PREPOSITIONS[code], *INTENT_WORDS[code].values()]
    return frozenset(fold(w) for text in texts for w in _WORD.findall(text.casefold()))


@functools.lru_cache(maxsize=1)
def _english_markers() -> frozenset[str]:
    from agent.analysis import vocabulary

    words = set(vocabulary.STOPWORDS)
    for phrases in list(vocabulary.INTENTS.values()) + list(vocabulary.WEAK_INTENTS.values()):
        for p in phrases:
            words.update(_WORD.findall(p.casefold()))
    return frozenset(fold(w) for w in words)


_CYRILLIC = re.compile(r"[\u0400-\u04ff]")


def detect(words: Iterable[str]) -> str:
    """The question's language: "ru" for Cyrillic, else the language knowing most words; "en" on ties.

    A question without a single function or intent word in any language but with accented letters
    ("Gartenmöbeln?") goes to the language whose Google names know its words (this loads those names).
    """
    raw = list(words)
    words = [fold(w) for w in raw]
    if any(_CYRILLIC.search(w) for w in words):
        return "ru"
    english = _english_markers()
    en_score = sum(1 for w in words if w in english)
    scores = {code: sum(1 for w in words if w in _markers(code)) for code in LANGUAGES if code != "ru"}
    top = max(scores.values())
    accented = top == 0 and en_score == 0 and any(not w.isascii() for w in raw)
    if top <= en_score and not accented:
        return "en"
    tied = [code for code in scores if scores[code] == top]

    def known(code: str) -> int:
        by_token = _taxonomy_index(code)[0].by_token
        return sum(1 for w in raw if stem(w, code) in by_token)

    if len(tied) > 1:
        # "Lacune nell'illuminazione": Dutch and Italian both know "lacune"; the category words decide.
        # A bare accented name ("Gartenmöbeln?") is tried in every language the same way.
        tied.sort(key=lambda code: -known(code))
    if accented and not known(tied[0]):
        return "en"
    return tied[0]


@dataclass
class _NameIndex:
    by_tokens: dict[tuple[str, ...], list]
    by_joined: dict[str, list]
    by_token: dict[str, set]
    names: dict  # key -> content stems


def _content(words: list[str], lang: _Lang) -> tuple[str, ...]:
    """Stems of a name's content words (function words, "and" and prepositions left out)."""
    out = []
    for w in words:
        s = stem(w, lang.code)
        if s and s not in lang.stop and s not in lang.and_words and s not in lang.preps:
            out.append(s)
    return tuple(out)


def _index(entries: Iterable[tuple[object, str]], lang: _Lang) -> _NameIndex:
    idx = _NameIndex({}, {}, {}, {})
    for key, name in entries:
        toks = _content(_words(name), lang)
        if not toks:
            continue
        idx.names[key] = toks
        idx.by_tokens.setdefault(toks, []).append(key)
        idx.by_joined.setdefault("".join(toks), []).append(key)
        for t in toks:
            idx.by_token.setdefault(t, set()).add(key)
    return idx


@functools.lru_cache(maxsize=None)
def _taxonomy_index(code: str) -> tuple[_NameIndex, dict[int, int]]:
    """Google's localised names for `code` (last level of each path) and each id's depth."""
    from agent.catalog.taxonomy import load_locale

    paths = load_locale(LOCALES[code])
    entries = [(cid, path.split(" > ")[-1]) for cid, path in paths.items()]
    return _index(entries, _lang(code)), {cid: path.count(" > ") + 1 for cid, path in paths.items()}


# The merchant's indexes, per categories object (its identity is checked: an id can be reused once the
# object is gone). The package's one cache type, bounded by entries: turns of several conversations
# may plan at once, and the cache's own lock covers them.
_OWN_CACHE: Cache[tuple[object, _NameIndex]] = Cache(max_entries=8)
_LEVEL_SPLIT = re.compile(r"\s*(?:>|/|\|)\s*")


def _own_index(categories: Iterable[str], code: str) -> _NameIndex:
    """The merchant's category levels, indexed in `code`'s normal form; cached per categories object."""
    key = (id(categories), code)
    hit = _OWN_CACHE.get(key)
    if hit is not None and hit[0] is categories:
        return hit[1]
    levels = {lvl.strip() for c in categories for lvl in _LEVEL_SPLIT.split(str(c)) if lvl.strip()}
    entries = [(lvl, lvl) for lvl in sorted(levels)]
    if code == "ru":  # "divany-i-kresla": a Russian name written in Latin letters, as slugs and handles are
        entries += [(lvl, cyrillic) for lvl, _ in list(entries) for cyrillic in _cyrillic(lvl)]
    idx = _index(entries, _lang(code))
    _OWN_CACHE.put(key, (categories, idx))
    return idx


# Latin letters back to Cyrillic, longest first: the common ways of writing Russian in Latin letters (the
# passport and road-sign schemes and the slugs shops make of them: "shch"/"sch", "zh", "kh", "ts", "ya").
_FROM_LATIN = (
    ("shch", "щ"),
    ("sch", "щ"),
    ("yo", "ё"),
    ("zh", "ж"),
    ("kh", "х"),
    ("ts", "ц"),
    ("ch", "ч"),
    ("sh", "ш"),
    ("yu", "ю"),
    ("ya", "я"),
    ("ye", "е"),
    ("iy", "ий"),
    ("yy", "ый"),
    ("a", "а"),
    ("b", "б"),
    ("v", "в"),
    ("w", "в"),
    ("g", "г"),
    ("d", "д"),
    ("e", "е"),
    ("z", "з"),
    ("i", "и"),
    ("j", "й"),
    ("k", "к"),
    ("l", "л"),
    ("m", "м"),
    ("n", "н"),
    ("o", "о"),
    ("p", "п"),
    ("r", "р"),
    ("s", "с"),
    ("t", "т"),
    ("u", "у"),
    ("f", "ф"),
    ("h", "х"),
    ("c", "ц"),
    ("y", "ы"),
    ("x", "кс"),
    ("q", "к"),
)
_LATIN_NAME = re.compile(r"^[A-Za-z][A-Za-z\s_-]*$")


def _cyrillic(name: str) -> tuple[str, ...]:
    """A Russian name written in Latin letters ("divany-i-kresla", "Stoly") in Cyrillic ("диваны и кресла",
    "столы"), for a Russian question to meet it; () for a name with other characters.

    Russian shops' handles, slugs and many category values are transliterated: a held-out Russian
    shop's sofas were filed under "divany-i-kresla", and "Где пробелы в диванах и креслах?" could not
    meet it, the question's words being Cyrillic. Transliteration loses letters (a soft sign inside a
    word, "й" against "и", which `fold` joins anyway), so this is a reading for matching only: the name
    stays as written. "ts" is "ц" or "тс" ("tsvety", "detskaya"): both are given, for at most two of them.
    A Latin name that is English gives Cyrillic no Russian question holds, so it costs nothing."""
    if not _LATIN_NAME.match(name):
        return ()
    low = name.casefold().replace("_", " ").replace("-", " ")
    readings = [""]
    i = 0
    while i < len(low):
        if low.startswith("ts", i) and len(readings) < 4:
            readings = [r + c for r in readings for c in ("ц", "тс")]
            i += 2
            continue
        if low[i] == "y" and i and low[i - 1] in "aeiou" and not low.startswith(("ya", "yu", "yo", "ye"), i):
            readings = [r + "й" for r in readings]  # "stroy", "chay"
            i += 1
            continue
        for latin, cyr in _FROM_LATIN:
            if low.startswith(latin, i):
                readings = [r + cyr for r in readings]
                i += len(latin)
                break
        else:
            readings = [r + low[i] for r in readings]
            i += 1
    return tuple(readings)


# --- translation ------------------------------------------------------------------------------------------------
def _variants(toks: tuple[str, ...], lang: _Lang, bare: bool = True) -> list[tuple[str, ...]]:
    """The phrase and its equivalents (outdoor ~ garden; compound heads in German and Dutch), original first.

    Last, as the English planner does with "patio chairs" → "chairs": the phrase without its
    outdoor word ("muebles de jardín" → "muebles", "Tuinverlichting" → "verlichting").
    """
    options = []
    tails = []
    for t in toks:
        alts = [t, *lang.equiv.get(t, ())]
        tail = t if t not in lang.outdoor else ""
        for group in lang.prefixes:
            for head in group:
                if t.startswith(head) and len(t) > len(head) + 2:
                    alts += [alt + t[len(head) :] for alt in group if alt != head]
                    tail = stem(t[len(head) :], lang.code)
        options.append(list(dict.fromkeys(alts)))
        if tail:
            tails.append(tail)
    out = [tuple(v) for v in itertools.islice(itertools.product(*options), MAX_VARIANTS)]
    if bare and tails and tuple(tails) != toks and len(tails[0]) >= MIN_STEM:
        out.append(tuple(tails))
    return out


def _exact(toks: tuple[str, ...], indexes: list[_NameIndex], lang: _Lang, bare: bool = True) -> tuple[int, list]:
    """(which index, keys) for the first variant that is a name in any index: per variant the
    merchant's own levels first, then Google's (so "tables d'extérieur" is Outdoor Tables even if the
    shop has a level called "Tables", which only the phrase without its outdoor word would meet)."""
    # a lone outdoor word matches only a name of that very word, never an equivalent (as in English)
    variants = [toks] if len(toks) == 1 and toks[0] in lang.outdoor else _variants(toks, lang, bare)
    for variant in variants:
        joined = "".join(variant)
        joined_forms = [joined] + ([v[0] for v in _variants((joined,), lang)[1:]] if lang.prefixes else [])
        for which, idx in enumerate(indexes):
            found = idx.by_tokens.get(variant) or next(
                (idx.by_joined[j] for j in joined_forms if j in idx.by_joined), None
            )
            if found:
                return which, list(found)
    return -1, []


def _partial(
    toks: tuple[str, ...], idx: _NameIndex, node_rows: Mapping[int, int], depth: dict[int, int], lang: _Lang
) -> int | None:
    """The localised node holding every word of the phrase with the fewest extra words (with products first).

    As in the English planner, a single word only picks a node the catalog has products in.
    """
    if len(toks) == 1 and (len(toks[0]) < 4 or toks[0] in lang.outdoor):
        return None  # a lone "ogrodowych"/"garden" is in too many names to pick one, as in English
    best = None
    for variant in _variants(toks, lang):
        sets = [idx.by_token.get(t, set()) for t in set(variant)]
        posting = set.intersection(*sets) if sets else set()
        for cid in posting:
            if len(toks) == 1 and not node_rows.get(cid, 0):
                continue
            key = (not node_rows.get(cid, 0), len(idx.names[cid]) - len(set(variant)), depth.get(cid, 9), cid)
            if best is None or key < best[0]:
                best = (key, cid)
        if best:
            break
    return best[1] if best else None


def _english(text: str) -> tuple[list[str], list[str]]:
    """Words and planner tokens for an English phrase or name ("and" dropped, as category names are indexed)."""
    from agent.analysis.vocabulary import stem as en_stem

    words = [w for w in _words(text) if en_stem(w) != "and"]
    return words, [en_stem(w) for w in words]


def to_english(
    words: list[str],
    toks: list[str],
    categories: Iterable[str] = (),
    node_rows: Mapping[int, int] | None = None,
    taxonomy=None,
) -> tuple[list[str], list[str]]:
    """The question's (words, planner tokens) with foreign intent words and category phrases in English.

    `words`/`toks` are the planner's raw words and stemmed tokens of the question, `categories` the
    merchant's own category values, `node_rows` rows per Google id (to prefer nodes with products),
    `taxonomy` the English taxonomy (for the English names). English questions come back unchanged.
    """
    if not words:
        return words, toks
    code = detect(words)
    if code == "en":
        return words, toks
    lang = _lang(code)
    own = _own_index(categories, code) if categories else _NameIndex({}, {}, {}, {})
    seq = _correct(words, [stem(w, code) for w in words], toks, lang, own, taxonomy)
    q = _Question(lang, seq)
    q.take_intents()
    q.take_categories(own, node_rows or {}, taxonomy.nodes if taxonomy is not None else {})
    return q.emit(words, toks)


MAX_CORRECTIONS = 12  # unknown words looked up for typos per question, as in the planner


def _correct(words: list[str], seq: list[str], en_toks: list[str], lang: _Lang, own: _NameIndex, taxonomy) -> list[str]:
    """Typos ("Gartenmöbln", "Lüken") replaced by the closest known word of the language, with the
    English planner's thresholds: intent words from five letters at 0.8, category words from six at
    0.85, same first letter, length within two. Words the English planner knows (an English
    category name inside a German question) are left alone."""
    tax_vocab = _taxonomy_vocab(lang.code)
    intent_vocab = _intent_vocab(lang.code)
    english = _english_vocab(taxonomy) if taxonomy is not None else frozenset()
    out, budget = [], MAX_CORRECTIONS
    for w, s, en in zip(words, seq, en_toks):
        known = (
            s in lang.stop
            or s in lang.preps
            or s in lang.and_words
            or s in intent_vocab
            or s in tax_vocab
            or s in own.by_token
            or en in english
            or s.isdigit()
        )
        if budget and len(w) >= 5 and not known:  # the word's length as written: stems are shorter
            budget -= 1
            fixed = _close(s, intent_vocab, 0.8)
            if fixed is None and len(w) >= 6:
                fixed = _close(s, tax_vocab, 0.85) or _close(s, frozenset(own.by_token), 0.85)
            out.append(fixed or s)
        else:
            out.append(s)
    return out


@functools.lru_cache(maxsize=None)
def _intent_vocab(code: str) -> frozenset[str]:
    return frozenset(t for phrase, _ in _lang(code).intents for t in phrase if len(t) >= 3)


@functools.lru_cache(maxsize=None)
def _taxonomy_vocab(code: str) -> frozenset[str]:
    return frozenset(_taxonomy_index(code)[0].by_token)


_ENGLISH_VOCAB: dict[int, tuple[object, frozenset[str]]] = {}


def _english_vocab(taxonomy) -> frozenset[str]:
    """Words the English planner knows: its stopwords and intent words, and the English taxonomy's names."""
    hit = _ENGLISH_VOCAB.get(id(taxonomy))
    if hit is not None and hit[0] is taxonomy:
        return hit[1]
    from agent.analysis import vocabulary

    raw = set(vocabulary.STOPWORDS)
    raw |= {w for phrases in vocabulary.INTENTS.values() for p in phrases for w in _WORD.findall(p.casefold())}
    raw |= {w for node in taxonomy.nodes.values() for w in _WORD.findall(node.name.casefold())}
    words = {vocabulary.stem(w) for w in raw}  # a membership test only: the plain word split is enough
    _ENGLISH_VOCAB.clear()
    _ENGLISH_VOCAB[id(taxonomy)] = (taxonomy, frozenset(words))
    return _ENGLISH_VOCAB[id(taxonomy)][1]


def _close(tok: str, vocab: frozenset[str], cutoff: float) -> str | None:
    pool = [w for w in _bucket(vocab, tok[0]) if abs(len(w) - len(tok)) <= 2]
    found = difflib.get_close_matches(tok, pool, n=1, cutoff=cutoff)
    return found[0] if found else None


@functools.lru_cache(maxsize=64)
def _bucket(vocab: frozenset[str], first: str) -> tuple[str, ...]:
    return tuple(sorted(w for w in vocab if w[:1] == first))


FREE, INTENT, CATEGORY = 0, 1, 2


class _Question:
    """One question's stems, and which spans became intent words or category names."""

    def __init__(self, lang: _Lang, seq: list[str]) -> None:
        self.lang, self.seq, self.n = lang, seq, len(seq)
        self.owner = [FREE] * self.n
        self.out: list[tuple[list[str], list[str]] | None] = [None] * self.n  # replacement at a span's start
        self.end = [0] * self.n  # a span's end, at its start

    def take(self, i: int, j: int, kind: int, repl: tuple[list[str], list[str]]) -> None:
        for k in range(i, j):
            if self.owner[k] == INTENT and self.out[k] is not None:
                self.out[k] = None  # an intent word inside a longer category name gives way to it
            self.owner[k] = kind
        self.out[i], self.end[i] = repl, j

    def function_word(self, k: int) -> bool:
        s, lang = self.seq[k], self.lang
        return s in lang.stop or s in lang.preps or s in lang.and_words

    def name_like(self, i: int, j: int) -> bool:
        """Inside a name: prepositions, "and" and short words ("für", "для", "la"), not "продаю" or "habe"."""
        stop = self.lang.stop
        return all(len(self.seq[k]) <= 3 or self.seq[k] not in stop for k in range(i + 1, j - 1))

    def take_intents(self) -> None:
        """Intent phrases, longest first (then leftmost): "nicht auf Lager" before "auf Lager"."""
        hits = []
        for i, s in enumerate(self.seq):
            for phrase, english in self.lang.intents_by_first.get(s, ()):
                if tuple(self.seq[i : i + len(phrase)]) == phrase:
                    hits.append((-len(phrase), i, english))
        for neg, i, english in sorted(hits):
            j = i - neg
            if all(o == FREE for o in self.owner[i:j]):
                self.take(i, j, INTENT, _english_phrase(english))

    def _open(self, i: int, j: int, content: tuple[str, ...]) -> bool:
        """Whether [i, j) may become a category: free, or (for names of two words or more) holding
        whole intent phrases beside free words ("appareils photo numériques" is Digital Cameras)."""
        owners = self.owner[i:j]
        if all(o == FREE for o in owners):
            return True
        if len(content) < 2 or CATEGORY in owners or FREE not in owners:
            return False
        for k in range(i, j):
            if self.out[k] is not None and self.owner[k] == INTENT and self.end[k] > j:
                return False
        return self.owner[i] != INTENT or self.out[i] is not None

    def take_categories(self, own: _NameIndex, node_rows: Mapping[int, int], names: Mapping) -> None:
        """Longest phrases first: exact names (own levels, then Google's), then partial Google names."""
        lang = self.lang
        tax_idx, depth = _taxonomy_index(lang.code)
        for partial in (False, True):
            for length in range(min(2 * MAX_PHRASE_WORDS, self.n), 0, -1):  # function words inside count
                for i in range(self.n - length + 1):
                    j = i + length
                    if self.function_word(i) or self.function_word(j - 1):
                        continue
                    content = tuple(self.seq[k] for k in range(i, j) if not self.function_word(k))
                    if not content or len(content) > MAX_PHRASE_WORDS or not self.name_like(i, j):
                        continue
                    free = all(o == FREE for o in self.owner[i:j])
                    if not (free or (not partial and self._open(i, j, content))):
                        continue
                    repl = None
                    if not partial:
                        which, hits = _exact(content, [own, tax_idx], lang, bare=free)
                        if which == 0:
                            repl = _english(sorted(hits)[0])
                        elif which == 1:
                            ids = [c for c in hits if c in names]
                            if ids:
                                best = sorted(ids, key=lambda c: (not node_rows.get(c, 0), depth.get(c, 9), c))[0]
                                repl = _english(names[best].name)
                    else:
                        cid = _partial(content, tax_idx, node_rows, depth, lang)
                        if cid is not None and cid in names:
                            repl = _english(names[cid].name)
                    if repl is not None:
                        self.take(i, j, CATEGORY, repl)

    def emit(self, words: list[str], toks: list[str]) -> tuple[list[str], list[str]]:
        """English words and tokens: replacements, "and", "in", and unknown words as they were."""
        lang = self.lang
        words_out: list[str] = []
        toks_out: list[str] = []
        k = 0
        after_category = False  # the last word kept was a category name ("brinquedos" → toys)
        while k < self.n:
            if self.owner[k] != FREE:
                out = self.out[k]
                if out is not None:
                    words_out += out[0]
                    toks_out += out[1]
                    after_category = self.owner[k] == CATEGORY
                    k = self.end[k]
                else:
                    k += 1
                continue
            s = self.seq[k]
            if s in lang.and_words:
                words_out.append("and")
                toks_out.append("and")
                after_category = False
            elif s in lang.for_words and after_category:
                # "brinquedos para cães": "toys for dogs", which the planner reads as Dog Toys; after any
                # other word ("tailles proposez-vous pour les tapis") it introduces the scope, as "in"
                words_out.append("for")
                toks_out.append("for")
                after_category = False
            elif s in lang.preps:
                words_out.append("in")
                toks_out.append("in")
                after_category = False
            elif s not in lang.stop:
                words_out.append(words[k])
                toks_out.append(toks[k])
                after_category = False
            k += 1
        return words_out, toks_out


@functools.lru_cache(maxsize=256)
def _english_phrase_cached(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    from agent.analysis.vocabulary import stem as en_stem

    words = _words(text)
    return tuple(words), tuple(en_stem(w) for w in words)


def _english_phrase(text: str) -> tuple[list[str], list[str]]:
    w, t = _english_phrase_cached(text)
    return list(w), list(t)


# demand_gaps (issue 15): "best sellers" / "popular" words per language, added to INTENT_WORDS here at the
# end so the tables above stay as they were. Words that also mean "question" or "ask" (nl "vraag", fr
# "demande", it "domanda") are left out: they would turn ordinary questions into demand questions.
_DEMAND_WORDS = {
    "de": (
        "bestseller | bestsellern | meistverkauft | meistverkaufte | meistverkauften | beliebt | beliebte | beliebten | "
        "beliebteste | beliebtesten | nachfrage | topseller | verkaufsschlager"
    ),
    "nl": "bestseller | bestsellers | best verkocht | best verkochte | meest verkocht | meest verkochte | populair | populaire | populairste",
    "pt": "mais vendidos | mais vendido | mais vendidas | mais vendida | populares | popular | procura | demanda",
    "es": "más vendidos | más vendido | más vendidas | más vendida | populares | popular | demanda | superventas",
    "fr": "meilleures ventes | meilleure vente | plus vendus | plus vendues | populaires | populaire | best sellers",
    "it": "più venduti | più vendute | più venduto | più venduta | popolari | popolare | bestseller",
    "pl": "bestsellery | bestsellerów | najlepiej sprzedające | najczęściej kupowane | popularne | popularnych | popularny | popyt",
    "ru": "бестселлеры | бестселлеров | хиты продаж | хит продаж | популярные | популярных | популярный | спрос | самые продаваемые",
}
for _demand_code, _demand_phrases in _DEMAND_WORDS.items():
    INTENT_WORDS[_demand_code]["best sellers"] = _demand_phrases
