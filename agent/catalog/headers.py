"""Header profiles: which export format a CSV header looks like, and which column plays which role.

A header is scored against each known export format by *precision*: the share of its columns that
belong to that format's vocabulary, provided at least one column distinctive of the format is present
(so a generic table with `title, price, brand` is not mistaken for a Merchant Center feed). The best
format wins if it beats the generic alias map. The score reported in the evidence footer is then the
winning format's own *coverage*: the share of the columns every export of that format writes that
are present (a genuine Magento export with 60 custom attribute columns matches 100%, not 51%), with
the missing ones named; a generic table reports its alias-map score.

Roles are canonical field names (`price`, `brand`…) plus a few format-specific ones (`handle`,
`published`, `parent`, `item_type`…) that the format readers consume.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_NON_ALNUM = re.compile(r"[\W_]+")  # letters of any script are kept: "Артикул", "Größe"
_PAREN = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_METAFIELD = re.compile(r"^(?P<label>.*?)\s*\((?P<owner>product|variant)\.metafields\.(?P<key>[^)]+)\)\s*$", re.I)


def norm(header: str) -> str:
    """Lower-case, punctuation to spaces: "Variant Compare At Price" ~ "Compare-at price" rules.
    Letters of every script stay (a Russian WooCommerce export's "Базовая цена" is a header, not blank)."""
    normalised = header.replace("\ufeff", "").strip().lower()
    if normalised.startswith("g:"):  # Merchant Center headers copied from XML feeds
        normalised = normalised[2:]
    return _NON_ALNUM.sub(" ", normalised).strip()


def metafield(header: str) -> tuple[str, str] | None:
    """`Color (product.metafields.shopify.color-pattern)` -> ("Color", "shopify.color-pattern")."""
    match = _METAFIELD.match(header)
    return (match.group("label").strip(), match.group("key")) if match else None


@dataclass(frozen=True)
class Profile:
    key: str
    name: str  # shown in the evidence footer
    vocabulary: frozenset[str]  # normalised headers that belong to the format
    prefixes: tuple[str, ...]  # normalised header prefixes that belong to it ("google shopping ")
    patterns: tuple[re.Pattern, ...]  # normalised header patterns ("attribute 3 value s")
    distinctive: frozenset[str]  # at least one must be present for the format to be considered
    roles: dict[str, tuple[str, ...]] = field(default_factory=dict)  # role -> aliases, first wins
    metafields: bool = False  # Shopify `… (product.metafields.…)` columns belong to it
    # Columns every export of the format writes (each a group of alternative names: header
    # generations). The footer's "header match" is the share of these present — a genuine export
    # with many custom columns (Magento attributes, WooCommerce `Meta:`) still matches 100%.
    required: tuple[tuple[str, ...], ...] = ()

    def coverage(self, columns: list[str]) -> tuple[float, tuple[str, ...]]:
        """Share of the required column groups present, and the first name of each missing one."""
        if not self.required:
            return 1.0, ()
        normed = {norm(column) for column in columns}
        missing = tuple(group[0] for group in self.required if not any(norm(alias) in normed for alias in group))
        return round(1 - len(missing) / len(self.required), 3), missing

    def knows(self, raw: str) -> bool:
        normalised = norm(raw)
        if normalised in self.vocabulary or any(normalised.startswith(p) for p in self.prefixes):
            return True
        if any(p.fullmatch(normalised) for p in self.patterns):
            return True
        return self.metafields and metafield(raw) is not None


def _v(*names: str) -> frozenset[str]:
    return frozenset(norm(name) for name in names)


def _r(**roles: str | tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    return {k: tuple(norm(alias) for alias in ((v,) if isinstance(v, str) else v)) for k, v in roles.items()}


_OPTIONS = {f"option{i}_{part}": (f"option{i} {part}",) for i in (1, 2, 3) for part in ("name", "value")}

SHOPIFY = Profile(
    key="shopify",
    name="Shopify product export",
    vocabulary=_v(
        # legacy header set
        "Handle",
        "Title",
        "Body (HTML)",
        "Vendor",
        "Product Category",
        "Type",
        "Tags",
        "Published",
        "Variant SKU",
        "Variant Grams",
        "Variant Inventory Tracker",
        "Variant Inventory Qty",
        "Variant Inventory Policy",
        "Variant Fulfillment Service",
        "Variant Price",
        "Variant Compare At Price",
        "Variant Requires Shipping",
        "Variant Taxable",
        "Variant Barcode",
        "Image Src",
        "Image Position",
        "Image Alt Text",
        "Gift Card",
        "SEO Title",
        "SEO Description",
        "Variant Image",
        "Variant Weight Unit",
        "Variant Tax Code",
        "Cost per item",
        "Status",
        "Standardized Product Type",
        "Standard Product Type",  # the 2021–2023 header writes it so (a real export in tests/corpus)
        "Custom Product Type",
        "Collection",
        "Unit Price Total Measure",
        "Unit Price Total Measure Unit",
        "Unit Price Base Measure",
        "Unit Price Base Measure Unit",
        # 2025 header set
        "URL handle",
        "Description",
        "Published on online store",
        "SKU",
        "Barcode",
        "Price",
        "Compare-at price",
        "Charge tax",
        "Tax code",
        "Inventory tracker",
        "Inventory quantity",
        "Continue selling when out of stock",
        "Weight value (grams)",
        "Weight unit for display",
        "Requires shipping",
        "Fulfillment service",
        "Product image URL",
        "Variant image URL",
        *[f"Option{i} {p}" for i in (1, 2, 3) for p in ("Name", "Value", "Linked To")],
    ),
    prefixes=("google shopping ", "included ", "price ", "compare at price "),
    patterns=(),
    distinctive=_v(
        "Handle",
        "Body (HTML)",
        "Variant Price",
        "Variant SKU",
        "Image Src",
        "Variant Inventory Policy",
        "URL handle",
        "Product image URL",
        "Continue selling when out of stock",
        "Published on online store",
        "Variant image URL",
    ),
    roles=_r(
        handle=("Handle", "URL handle"),
        title="Title",
        description=("Body (HTML)", "Description"),
        brand="Vendor",
        # 2021–2023 exports: Shopify's standard type (a taxonomy path) before `Product Category` existed
        category_path=("Product Category", "Standard Product Type", "Standardized Product Type"),
        product_type=("Type", "Custom Product Type"),
        published=("Published", "Published on online store"),
        status="Status",
        sku=("Variant SKU", "SKU"),
        inventory_tracker=("Variant Inventory Tracker", "Inventory tracker"),
        inventory_qty=("Variant Inventory Qty", "Inventory quantity"),
        inventory_policy=("Variant Inventory Policy", "Continue selling when out of stock"),
        price=("Variant Price", "Price"),
        compare_at_price=("Variant Compare At Price", "Compare-at price"),
        gtin=("Variant Barcode", "Barcode"),
        image_src=("Image Src", "Product image URL"),
        variant_image=("Variant Image", "Variant image URL"),
        google_category=("Google Shopping / Google Product Category",),
        mpn=("Google Shopping / MPN",),
        **{k: v[0] for k, v in _OPTIONS.items()},
    ),
    metafields=True,
    required=(
        ("Handle", "URL handle"),
        ("Title",),
        ("Body (HTML)", "Description"),
        ("Vendor",),
        ("Published", "Published on online store"),
        ("Option1 Name",),
        ("Option1 Value",),
        ("Variant SKU", "SKU"),
        ("Variant Price", "Price"),
        ("Image Src", "Product image URL"),
    ),
)

# Merchant Center accepts attribute names in the feed's language. Polish (as a real feed writes them):
# English attribute -> Polish name.
GMC_PL = {
    "id": "identyfikator",
    "title": "tytuł",
    "description": "opis",
    "link": "link",
    "image_link": "link do zdjęcia",
    "price": "cena",
    "sale_price": "cena promocyjna",
    "availability": "dostępność",
    "condition": "stan",
    "brand": "marka",
    "gtin": "gtin",
    "mpn": "mpn",
    "item_group_id": "identyfikator grupy produktów",
    "google_product_category": "kategoria produktów google",
    "product_type": "typ produktu",
    "color": "kolor",
    "size": "rozmiar",
    "material": "materiał",
}


def _gmc(name: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys((name, GMC_PL.get(name, name))))


GMC = Profile(
    key="gmc",
    name="Google Merchant Center feed",
    vocabulary=_v(
        "id",
        "title",
        "description",
        "link",
        "mobile_link",
        "canonical_link",
        "image_link",
        "additional_image_link",
        "lifestyle_image_link",
        "price",
        "sale_price",
        "sale_price_effective_date",
        "availability",
        "availability_date",
        "expiration_date",
        "condition",
        "brand",
        "gtin",
        "mpn",
        "identifier_exists",
        "item_group_id",
        "google_product_category",
        "product_type",
        "color",
        "size",
        "material",
        "pattern",
        "gender",
        "age_group",
        "size_type",
        "size_system",
        "adult",
        "multipack",
        "is_bundle",
        "shipping",
        "shipping_weight",
        "shipping_label",
        "shipping_length",
        "shipping_width",
        "shipping_height",
        "tax",
        "tax_category",
        "cost_of_goods_sold",
        "unit_pricing_measure",
        "unit_pricing_base_measure",
        "energy_efficiency_class",
        "promotion_id",
        "ads_redirect",
        "excluded_destination",
        "included_destination",
        "shopping_ads_excluded_country",
        "product_highlight",
        "product_detail",
        "product_length",
        "product_width",
        "product_height",
        "product_weight",
        "max_handling_time",
        "min_handling_time",
        "sell_on_google_quantity",
        "return_policy_label",
        "short_title",
        "certification",
        "loyalty_program",
        "pause",
        "store_code",
        "installment",
        "subscription_cost",
        "transit_time_label",
        "virtual_model_link",
        "auto_pricing_min_price",
        "max_energy_efficiency_class",
        "min_energy_efficiency_class",
        "product_fee",
        "structured_title",
        "structured_description",
        "external_seller_id",
        # the OpenAI product feed's (a Merchant-Center-shaped feed) name for the shop's path, which the
        # roles read as the category: the feed's own column, so a generic `product category` alias does not
        # outweigh it (tests/corpus/gmc/foodtrailer-product-feed-nzd.csv)
        "product_category",
        *GMC_PL.values(),
    ),
    prefixes=("custom label ",),
    patterns=(),
    distinctive=_v(
        "image_link",
        "item_group_id",
        "condition",
        "identifier_exists",
        "additional_image_link",
        "mobile_link",
        "age_group",
        "sale_price_effective_date",
        "shipping_weight",
        "link do zdjęcia",
        "identyfikator grupy produktów",
    ),
    roles=_r(
        variant_id=_gmc("id"),
        product_id=_gmc("item_group_id"),
        title=_gmc("title"),
        description=_gmc("description"),
        link=_gmc("link"),
        image_url=_gmc("image_link"),
        price=_gmc("price"),
        sale_price=_gmc("sale_price"),
        sale_window=_gmc("sale_price_effective_date"),
        availability=_gmc("availability"),
        brand=_gmc("brand"),
        gtin=_gmc("gtin"),
        mpn=_gmc("mpn"),
        identifier_exists=_gmc("identifier_exists"),
        google_category=_gmc("google_product_category"),
        # the OpenAI product feed (a Merchant-Center-shaped feed) names the shop's path `product_category`
        category_path=(*_gmc("product_type"), "product_category"),
        color=_gmc("color"),
        size=_gmc("size"),
        material=_gmc("material"),
        pause="pause",
    ),
    # Merchant Center's required product data (brand/GTIN/MPN/condition are conditional)
    required=tuple(_gmc(a) for a in ("id", "title", "description", "link", "image_link", "price", "availability")),
)

# WooCommerce writes its export header in the shop admin's language: English label -> translated
# label, per language, for the columns the reader uses and the vocabulary. Russian from a real export
# (tests/corpus/woocommerce/farfetch-russian-header.csv); German, Spanish and French as public import
# scripts and templates write WooCommerce's own headers (de_DE, es_ES, fr_FR translations).
WOO_LABELS: dict[str, dict[str, str]] = {
    "ru": {
        "Type": "Тип",
        "SKU": "Артикул",
        "GTIN, UPC, EAN, or ISBN": "GTIN, UPC, EAN или ISBN",
        "Name": "Имя",
        "Published": "Опубликован",
        "Is featured?": "Рекомендуемый?",
        "Visibility in catalog": "Видимость в каталоге",
        "Short description": "Краткое описание",
        "Description": "Описание",
        "Date sale price starts": "Дата начала действия скидки",
        "Date sale price ends": "Дата окончания действия скидки",
        "Tax status": "Статус налога",
        "Tax class": "Налоговый класс",
        "In stock?": "Наличие",
        "Stock": "Запасы",
        "Low stock amount": "Величина малых запасов",
        "Backorders allowed?": "Возможен ли предзаказ?",
        "Sold individually?": "Продано индивидуально?",
        "Allow customer reviews?": "Разрешить отзывы от клиентов?",
        "Purchase note": "Примечание к покупке",
        "Sale price": "Акционная цена",
        "Regular price": "Базовая цена",
        "Categories": "Категории",
        "Tags": "Метки",
        "Shipping class": "Класс доставки",
        "Images": "Изображения",
        "Download limit": "Лимит скачивания",
        "Download expiry days": "Дней срока скачивания",
        "Parent": "Родительский",
        "Grouped products": "Сгруппированные товары",
        "Upsells": "Апсэлы",
        "Cross-sells": "Кросселы",
        "External URL": "Внешний URL",
        "Button text": "Текст кнопки",
        "Position": "Позиция",
        "Brands": "Бренды",
    },
    "de": {
        "Type": "Typ",
        "SKU": "Artikelnummer",
        "Published": "Veröffentlicht",
        "Is featured?": "Ist hervorgehoben?",
        "Visibility in catalog": "Sichtbarkeit im Katalog",
        "Short description": "Kurzbeschreibung",
        "Description": "Beschreibung",
        "Date sale price starts": "Datum, an dem Angebotspreis beginnt",
        "Date sale price ends": "Datum, an dem Angebotspreis endet",
        "Tax status": "Steuerstatus",
        "Tax class": "Steuerklasse",
        "In stock?": "Vorrätig?",
        "Stock": "Lager",
        "Low stock amount": "Geringe Lagermenge",
        "Backorders allowed?": "Lieferrückstande erlaubt?",
        "Sold individually?": "Nur einzeln verkaufen?",
        "Allow customer reviews?": "Kundenbewertungen erlauben?",
        "Purchase note": "Hinweis zum Kauf",
        "Sale price": "Angebotspreis",
        "Regular price": "Regulärer Preis",
        "Categories": "Kategorien",
        "Tags": "Schlagwörter",
        "Shipping class": "Versandklasse",
        "Images": "Bilder",
        "Download limit": "Downloadlimit",
        "Download expiry days": "Ablauftage des Downloads",
        "Parent": "Übergeordnetes Produkt",
        "Grouped products": "Gruppierte Produkte",
        "Upsells": "Zusatzverkäufe",
        "Cross-sells": "Cross-Sells (Querverkäufe)",
        "External URL": "Externe URL",
        "Button text": "Button-Text",
    },
    "es": {
        "Type": "Tipo",
        "GTIN, UPC, EAN, or ISBN": "GTIN, UPC, EAN o ISBN",
        "Name": "Nombre",
        "Published": "Publicado",
        "Is featured?": "¿Está destacado?",
        "Visibility in catalog": "Visibilidad en el catálogo",
        "Short description": "Descripción corta",
        "Description": "Descripción",
        "Date sale price starts": "Día en que empieza el precio rebajado",
        "Date sale price ends": "Día en que termina el precio rebajado",
        "Tax status": "Estado del impuesto",
        "Tax class": "Clase de impuesto",
        "In stock?": "¿Existencias?",
        "Stock": "Inventario",
        "Low stock amount": "Cantidad de bajo inventario",
        "Backorders allowed?": "¿Permitir reservas de productos agotados?",
        "Sold individually?": "¿Vendido individualmente?",
        "Allow customer reviews?": "¿Permitir valoraciones de clientes?",
        "Purchase note": "Nota de compra",
        "Sale price": "Precio rebajado",
        "Regular price": "Precio normal",
        "Categories": "Categorías",
        "Tags": "Etiquetas",
        "Shipping class": "Clase de envío",
        "Images": "Imágenes",
        "Download limit": "Límite de descargas",
        "Download expiry days": "Días de caducidad de la descarga",
        "Parent": "Superior",
        "Grouped products": "Productos agrupados",
        "Upsells": "Ventas dirigidas",
        "Cross-sells": "Ventas cruzadas",
        "External URL": "URL externa",
        "Button text": "Texto del botón",
        "Position": "Posición",
        "Brands": "Marcas",
    },
    "fr": {
        "SKU": "UGS",
        "GTIN, UPC, EAN, or ISBN": "GTIN, UPC, EAN ou ISBN",
        "Name": "Nom",
        "Published": "Publié",
        "Is featured?": "Mis en avant ?",
        "Visibility in catalog": "Visibilité dans le catalogue",
        "Short description": "Description courte",
        "In stock?": "En stock ?",
        "Low stock amount": "Montant de stock faible",
        "Sale price": "Tarif promo",
        "Regular price": "Tarif régulier",
        "Categories": "Catégories",
        "Tags": "Étiquettes",
        "Shipping class": "Classe d’expédition",
        "Download limit": "Limite de téléchargement",
        "Download expiry days": "Jours d’expiration du téléchargement",
        "Grouped products": "Groupes de produits",
        "Upsells": "Produits suggérés",
        "Cross-sells": "Ventes croisées",
        "External URL": "URL externe",
        "Button text": "Libellé du bouton",
    },
}
# Attribute columns in each language ("Attribute 1 name", "Attribut 1 Wert(e)", "Nombre del atributo 1"…)
WOO_ATTRIBUTE_COLUMNS = re.compile(
    r"attribute \d+ (name|value s|visible|global|default)|attribut \d+ (name|wert e|sichtbar|global|standard)"
    r"|(название|значения|видимость) атрибут(а|ов) \d+|глобальный атрибут \d+"
    r"|(nombre|valor es) del atributo \d+|atributo (visible|global) \d+"
    r"|(nom|valeur s) de l attribut \d+|attribut \d+ (visible|global)"
)


# WooCommerce's importer also takes a column by the field key it maps a label to: a header it does not
# know as a label is kept lower-cased and matched against those keys (WC_Product_CSV_Importer_Controller::
# auto_map_columns), so import files written by scripts name their columns `regular_price`, `stock_quantity`,
# `parent_id` (a held-out import file: dylanmurzello/new woocommerce.csv). Label -> the importer's keys;
# `status` is the REST API's name for what the exporter calls Published (publish/draft/private/pending,
# or the exporter's 1/0/-1), and `post_*` are the WordPress names the importer maps too. The keys name
# roles only, not the format's vocabulary: a REST API dump (`price`, `status`, `regular_price`; tests/corpus/
# generic/bambini-kidswear-rest-rs.csv) stays a generic table, whose `price` the WooCommerce reader lacks.
WOO_KEYS: dict[str, tuple[str, ...]] = {
    "Name": ("post_title",),
    "Published": ("status", "post_status"),
    "Short description": ("post_excerpt",),
    "Description": ("post_content",),
    "Date sale price starts": ("date_on_sale_from",),
    "Date sale price ends": ("date_on_sale_to",),
    "In stock?": ("stock_status",),
    "Stock": ("stock_quantity",),
    "Backorders allowed?": ("backorders",),
    "Categories": ("category_ids",),
    "Parent": ("parent_id", "post_parent"),
    "External URL": ("product_url",),
}


def _woo(*english: str) -> tuple[str, ...]:
    """A WooCommerce column under each of its known labels (English first), then its importer keys."""
    labels = [*english, *(lang.get(e, e) for e in english for lang in WOO_LABELS.values())]
    return tuple(dict.fromkeys([*labels, *(key for e in english for key in WOO_KEYS.get(e, ()))]))


# The exporter's own header in English, in its column order (one label per column it writes)
WOO_EXPORT_COLUMNS = (
    "ID",
    "Type",
    "SKU",
    "GTIN, UPC, EAN, or ISBN",
    "Name",
    "Published",
    "Is featured?",
    "Visibility in catalog",
    "Short description",
    "Description",
    "Date sale price starts",
    "Date sale price ends",
    "Tax status",
    "Tax class",
    "In stock?",
    "Stock",
    "Low stock amount",
    "Backorders allowed?",
    "Sold individually?",
    "Allow customer reviews?",
    "Purchase note",
    "Sale price",
    "Regular price",
    "Categories",
    "Tags",
    "Shipping class",
    "Images",
    "Download limit",
    "Download expiry days",
    "Parent",
    "Grouped products",
    "Upsells",
    "Cross-sells",
    "External URL",
    "Button text",
    "Position",
    "Brands",
)


WOOCOMMERCE = Profile(
    key="woocommerce",
    name="WooCommerce product export",
    vocabulary=_v(*WOO_EXPORT_COLUMNS, *(label for lang in WOO_LABELS.values() for label in lang.values())),
    prefixes=(
        "weight ",
        "length ",
        "width ",
        "height ",
        "meta ",
        "вес ",
        "длина ",
        "ширина ",
        "высота ",
        "метка meta ",
        "gewicht ",
        "länge ",
        "breite ",
        "höhe ",
        "peso ",
        "longitud ",
        "anchura ",
        "altura ",
        "poids ",
        "longueur ",
        "largeur ",
        "hauteur ",
    ),
    patterns=(WOO_ATTRIBUTE_COLUMNS, re.compile(r"download \d+ (name|url|id)")),
    distinctive=_v(
        *_woo(
            "Regular price",
            "In stock?",
            "Backorders allowed?",
            "Grouped products",
            "Visibility in catalog",
            "Is featured?",
            "Sold individually?",
        ),
        "Attribute 1 name",
    ),
    roles=_r(
        product_id=_woo("ID"),
        wc_type=_woo("Type"),
        sku=_woo("SKU"),
        gtin=_woo("GTIN, UPC, EAN, or ISBN"),
        title=_woo("Name"),
        published=_woo("Published"),
        description=_woo("Description", "Short description"),
        in_stock=_woo("In stock?"),
        inventory_qty=_woo("Stock"),
        backorders=_woo("Backorders allowed?"),
        sale_price=_woo("Sale price"),
        sale_start=_woo("Date sale price starts"),
        sale_end=_woo("Date sale price ends"),
        price=_woo("Regular price"),
        category_path=_woo("Categories"),
        image_url=_woo("Images"),
        parent=_woo("Parent"),
        link=_woo("External URL"),
        brand=_woo("Brands"),
    ),
    required=tuple(
        _woo(e)
        for e in (
            "ID",
            "Type",
            "SKU",
            "Name",
            "Published",
            "In stock?",
            "Stock",
            "Regular price",
            "Sale price",
            "Categories",
            "Images",
            "Parent",
        )
    ),
)

MAGENTO = Profile(
    key="magento",
    name="Adobe Commerce (Magento) export",
    vocabulary=_v(
        "sku",
        "store_view_code",
        "attribute_set_code",
        "product_type",
        "categories",
        "product_websites",
        "name",
        "description",
        "short_description",
        "weight",
        "product_online",
        "tax_class_name",
        "visibility",
        "price",
        "special_price",
        "special_price_from_date",
        "special_price_to_date",
        "url_key",
        "meta_title",
        "meta_keywords",
        "meta_description",
        "base_image",
        "base_image_label",
        "small_image",
        "small_image_label",
        "thumbnail_image",
        "thumbnail_image_label",
        "swatch_image",
        "swatch_image_label",
        "created_at",
        "updated_at",
        "new_from_date",
        "new_to_date",
        "display_product_options_in",
        "map_price",
        "msrp_price",
        "map_enabled",
        "gift_message_available",
        "custom_design",
        "custom_design_from",
        "custom_design_to",
        "custom_layout_update",
        "page_layout",
        "product_options_container",
        "msrp_display_actual_price_type",
        "country_of_manufacture",
        "additional_attributes",
        "qty",
        "out_of_stock_qty",
        "use_config_min_qty",
        "is_qty_decimal",
        "allow_backorders",
        "use_config_backorders",
        "min_cart_qty",
        "use_config_min_sale_qty",
        "max_cart_qty",
        "use_config_max_sale_qty",
        "is_in_stock",
        "notify_on_stock_below",
        "use_config_notify_stock_qty",
        "manage_stock",
        "use_config_manage_stock",
        "use_config_qty_increments",
        "qty_increments",
        "use_config_enable_qty_inc",
        "enable_qty_increments",
        "is_decimal_divided",
        "website_id",
        "related_skus",
        "related_position",
        "crosssell_skus",
        "crosssell_position",
        "upsell_skus",
        "upsell_position",
        "additional_images",
        "additional_image_labels",
        "hide_from_product_page",
        "custom_options",
        "bundle_price_type",
        "bundle_sku_type",
        "bundle_price_view",
        "bundle_weight_type",
        "bundle_values",
        "bundle_shipment_type",
        "associated_skus",
        "downloadable_links",
        "downloadable_samples",
        "configurable_variations",
        "configurable_variation_labels",
        "deferred_stock_update",
        "use_config_deferred_stock_update",
        "manufacturer",
        "color",
        "size",
    ),
    prefixes=(),
    patterns=(),
    distinctive=_v(
        "attribute_set_code",
        "product_websites",
        "store_view_code",
        "url_key",
        "additional_attributes",
        "configurable_variations",
        "product_online",
        "is_in_stock",
    ),
    roles=_r(
        sku="sku",
        store_view="store_view_code",
        mg_type="product_type",
        category_path="categories",
        title="name",
        description=("description", "short_description"),
        online="product_online",
        visibility="visibility",
        price="price",
        sale_price="special_price",
        sale_start="special_price_from_date",
        sale_end="special_price_to_date",
        url_key="url_key",
        image_url=("base_image", "small_image", "thumbnail_image"),
        additional_attributes="additional_attributes",
        inventory_qty="qty",
        backorders="allow_backorders",
        in_stock="is_in_stock",
        configurable_variations="configurable_variations",
        associated_skus="associated_skus",
        parent_sku="parent_sku",
        brand="manufacturer",
        color="color",
        size="size",
    ),
    required=(
        ("sku",),
        ("store_view_code",),
        ("attribute_set_code",),
        ("product_type",),
        ("categories",),
        ("product_websites",),
        ("name",),
        ("product_online",),
        ("visibility",),
        ("price",),
        ("url_key",),
        ("qty",),
        ("is_in_stock",),
    ),
)

BIGCOMMERCE = Profile(
    key="bigcommerce",
    name="BigCommerce product export",
    vocabulary=_v(
        "Item Type",
        "Product ID",
        "Product Name",
        "Product Type",
        "Product Code/SKU",
        "Bin Picking Number",
        "Brand Name",
        "Option Set",
        "Option Set Align",
        "Product Description",
        "Price",
        "Cost Price",
        "Retail Price",
        "Sale Price",
        "Fixed Shipping Cost",
        "Free Shipping",
        "Product Warranty",
        "Product Weight",
        "Product Width",
        "Product Height",
        "Product Depth",
        "Allow Purchases?",
        "Product Visible?",
        "Product Availability",
        "Track Inventory",
        "Current Stock Level",
        "Low Stock Level",
        "Category",
        "Search Keywords",
        "Page Title",
        "Meta Keywords",
        "Meta Description",
        "Product Condition",
        "Show Product Condition?",
        "Sort Order",
        "Product Tax Class",
        "Product UPC/EAN",
        "Stop Processing Rules",
        "Product URL",
        "Redirect Old URL?",
        "Product Inventoried",
        "Date Added",
        "Date Modified",
        "Product Custom Fields",
        "Product Files",
        "Manufacturer Part Number",
        "Global Trade Item Number",
    ),
    prefixes=("product image ", "gps ", "myob ", "event date ", "variant ", "tax provider "),
    patterns=(),
    distinctive=_v(
        "Item Type",
        "Product Code/SKU",
        "Current Stock Level",
        "Product Visible?",
        "Track Inventory",
        "Option Set",
        "Product UPC/EAN",
        "Bin Picking Number",
    ),
    roles=_r(
        item_type="Item Type",
        product_id="Product ID",
        title="Product Name",
        sku="Product Code/SKU",
        brand="Brand Name",
        description="Product Description",
        price="Price",
        compare_at_price="Retail Price",
        sale_price="Sale Price",
        visible="Product Visible?",
        track_inventory="Track Inventory",
        inventory_qty="Current Stock Level",
        category_path="Category",
        gtin=("Product UPC/EAN", "GPS Global Trade Item Number", "Global Trade Item Number"),
        mpn=("GPS Manufacturer Part Number", "Manufacturer Part Number"),
        link="Product URL",
        image_url=("Product Image URL - 1", "Product Image File - 1"),
        google_category=("GPS Category",),
        date_modified="Date Modified",
    ),
    required=(
        ("Item Type",),
        ("Product ID",),
        ("Product Name",),
        ("Product Type",),
        ("Product Code/SKU",),
        ("Price",),
        ("Product Visible?",),
        ("Track Inventory",),
        ("Current Stock Level",),
        ("Category",),
    ),
)

# Generic: a header alias map for anything else. Canonical names themselves are aliases too.
_ENGLISH_GENERIC_ROLES = _r(
    product_id=(
        "product_id",
        "product id",
        "parent_id",
        "parent sku",
        "item_group_id",
        "group id",
        "handle",
        "handleid",
        "handle id",
        "style",
        "style number",
        "model",
        "product number",
        "parent id",
        "parent",
        "productid",
    ),
    variant_id=("variant_id", "variant id", "id", "item id", "offer id", "variation id"),
    sku=(
        "sku",
        "variant sku",
        "item sku",
        "item code",
        "article number",
        "article",
        "code",
        "item number",
        "product code",
        "part number",
        "reference",
        "seller sku",
        "merchant sku",
    ),
    # Google Ads' custom feed names its columns "Item title", "Item description", "Final URL"
    title=("title", "name", "product name", "product title", "item name", "product", "listing title", "item title"),
    description=(
        "description",
        "item description",
        "desc",
        "body",
        "body html",
        "long description",
        "product description",
        "short description",
    ),
    brand=("brand", "vendor", "manufacturer", "make", "brand name", "label"),
    status=("status", "state", "product status", "published", "active", "enabled", "visible"),
    category_path=(
        "category",
        "category path",
        "categories",
        "category name",
        "product category",  # Lightspeed (Vend) retail exports; Shopify's own name for it
        "department",
        "merchant category",
        "collection",
        "section",
    ),
    product_type=("product_type", "product type", "type", "item type", "subcategory", "sub category", "class"),
    google_category=(
        "google_product_category",
        "google product category",
        "google category",
        "google category id",
        "google_category_id",
        "gpc",
        "taxonomy id",
    ),
    price=(
        "price",
        "regular price",
        "unit price",
        "amount",
        "retail price",
        "list price",
        "base price",
        "selling price",
        "price incl vat",
        "price inc vat",
        "price incl tax",
        "price tax included",
        "standard price",
        "your price",
        "cost to customer",
    ),
    compare_at_price=(
        "compare_at_price",
        "compare at price",
        "original price",
        "old price",
        "was price",
        "msrp",
        "rrp",
        "price before discount",
    ),
    sale_price=("sale_price", "sale price", "special price", "discounted price", "promo price", "offer price"),
    currency=(
        "currency",
        "currency code",
        "currency_code",
        "price currency",
        "ccy",
        "currency iso",
        "currency iso code",
        "price currency code",
    ),
    sale_start=(
        "sale_start",
        "sale start",
        "sale start date",
        "sale price start",
        "sale price starts",
        "date sale price starts",
        "sale from",
        "special price from date",
        "special_price_from_date",
        "sale_price_effective_start_date",  # the Merchant Center transfer's column (a table or its export)
        "sale price effective start date",
    ),
    sale_end=(
        "sale_end",
        "sale end",
        "sale end date",
        "sale price end",
        "sale price ends",
        "date sale price ends",
        "sale to",
        "special price to date",
        "special_price_to_date",
        "sale_price_effective_end_date",
        "sale price effective end date",
    ),
    sale_window=("sale_price_effective_date", "sale price effective date"),
    inventory_qty=(
        "inventory_qty",
        "inventory qty",
        "inventory",
        "stock",
        "qty",
        "quantity",
        "stock level",
        "stock quantity",
        "on hand",
        "quantity on hand",
        "available quantity",
        "inventory quantity",
        "units in stock",
        "stock qty",
    ),
    availability=("availability", "stock status", "in stock", "availability status", "stock_status"),
    inventory_policy=(
        "inventory_policy",
        "inventory policy",
        "backorders",
        "backorders allowed",
        "allow backorders",
        "oversell",
    ),
    identifier_exists=("identifier_exists", "identifier exists"),
    gtin=(
        "gtin",
        "ean",
        "upc",
        "barcode",
        "isbn",
        "ean13",
        "gtin13",
        "gtin 13",
        "upc ean",
        "jan",
        "external product id",
        "product id value",
    ),
    mpn=("mpn", "manufacturer part number", "mfr part number"),
    color=("color", "colour", "colors", "colours", "color name", "colour name"),
    material=("material", "materials", "fabric", "material type"),
    size=("size", "sizes", "size name"),
    image_url=(
        "image_url",
        "image url",
        "image",
        "image link",
        "image src",
        "picture",
        "photo",
        "main image",
        "main image url",
        "image 1",
        "image1",
        "images",
        "image urls",
        "product image url",
        "productimageurl",
        "hosted image urls",
        "thumbnail",
    ),
    link=("link", "url", "product url", "product link", "page url", "web url", "final url"),
    # Lightspeed Retail (Vend) spells the number: `variant_option_one_name`, `variant_option_one_value`
    option1_name=("option1 name", "option 1 name", "option name 1", "variant option one name"),
    option1_value=("option1 value", "option 1 value", "option value 1", "variant option one value"),
    option2_name=("option2 name", "option 2 name", "option name 2", "variant option two name"),
    option2_value=("option2 value", "option 2 value", "option value 2", "variant option two value"),
    option3_name=("option3 name", "option 3 name", "option name 3", "variant option three name"),
    option3_value=("option3 value", "option 3 value", "option value 3", "variant option three value"),
)

# The same fields in the languages merchants export in (German, French, Spanish, Italian, Portuguese,
# Dutch; Polish, Russian, Turkish and Arabic): Etsy writes its listings download in the shop's language
# (an Italian shop's real header: TITOLO, DESCRIZIONE, PREZZO, CURRENCY_CODE, QUANTITÀ, MATERIALI,
# IMMAGINE1), and a shop's own table uses its own words (an Egyptian shop's: اسم المنتج, Slug, الوصف,
# السعر, القسم — product name, slug, description, price, section). After the English names, so an
# English column wins where a file has both. Words that also mean something else in a shop's table
# are left out (Polish "stan" is a condition as often as a stock, Turkish "ad" is any name).
LOCALISED_GENERIC_ROLES = _r(
    title=(
        "titel",
        "titre",
        "título",
        "titulo",
        "titolo",
        "produktname",
        "artikelname",
        "bezeichnung",
        "nom du produit",
        "nom",
        "nombre del producto",
        "nombre",
        "nome prodotto",
        "nome do produto",
        "nome",
        "productnaam",
        "naam",
        "nazwa",
        "nazwa produktu",
        "tytuł",
        "название",
        "наименование",
        "название товара",
        "наименование товара",
        "товар",
        "ürün adı",
        "ürün",
        "başlık",
        "اسم المنتج",
        "المنتج",
        "الاسم",
        "اسم",
        "العنوان",
    ),
    description=(
        "beschreibung",
        "descripción",
        "descripcion",
        "descrizione",
        "descrição",
        "descricao",
        "beschrijving",
        "omschrijving",
        "opis",
        "описание",
        "açıklama",
        "الوصف",
    ),
    brand=(
        "marke",
        "hersteller",
        "marque",
        "marca",
        "merk",
        "fabrikant",
        "marka",
        "producent",
        "бренд",
        "марка",
        "производитель",
        "العلامة التجارية",
        "الماركة",
    ),
    category_path=(
        "kategorie",
        "catégorie",
        "categorie",
        "categoría",
        "categoria",
        "rubrik",
        "rayon",
        "kategoria",
        "категория",
        "раздел",
        "kategori",
        "الفئة",
        "القسم",
        "التصنيف",
    ),
    price=(
        "preis",
        "verkaufspreis",
        "prix",
        "prix de vente",
        "precio",
        "prezzo",
        "preço",
        "preco",
        "prijs",
        "cena",
        "цена",
        "fiyat",
        "السعر",
        "سعر",
    ),
    inventory_qty=(
        "menge",
        "bestand",
        "lagerbestand",
        "anzahl",
        "quantité",
        "cantidad",
        "existencias",
        "quantità",
        "quantidade",
        "estoque",
        "hoeveelheid",
        "voorraad",
        "ilość",
        "stan magazynowy",
        "количество",
        "остаток",
        "stok",
        "miktar",
        "الكمية",
        "المخزون",
    ),
    material=(
        "materialien",
        "matériaux",
        "materiales",
        "materiali",
        "materiais",
        "materialen",
        "materiał",
        "материал",
        "malzeme",
        "المادة",
    ),
    image_url=(
        "bild1",
        "bild",
        "imagen1",
        "imagen",
        "immagine1",
        "immagine",
        "imagem1",
        "imagem",
        "afbeelding1",
        "afbeelding",
        "zdjęcie",
        "изображение",
        "фото",
        "resim",
        "görsel",
        "الصورة",
    ),
)
# The generic table's names: English first, then the localised ones (a role only localised kept too).
GENERIC_ROLES = {
    role: aliases + tuple(a for a in LOCALISED_GENERIC_ROLES.get(role, ()) if a not in aliases)
    for role, aliases in _ENGLISH_GENERIC_ROLES.items()
} | {role: aliases for role, aliases in LOCALISED_GENERIC_ROLES.items() if role not in _ENGLISH_GENERIC_ROLES}

PROFILES: tuple[Profile, ...] = (SHOPIFY, GMC, WOOCOMMERCE, MAGENTO, BIGCOMMERCE)
for _profile in PROFILES:  # no format has a currency column of its own, but a file may add one
    _profile.roles.setdefault("currency", GENERIC_ROLES["currency"])
GENERIC_NAME = "generic table"

# Stock kept per location, one column each, in point-of-sale exports: Lightspeed Retail (Vend) writes
# `inventory_<outlet>` (held-out helenhhuang17/Vend product-export.csv: `inventory_Basement`,
# `inventory_Garage`, … six outlets, and no single stock column), Square `Current Quantity <location>`.
# A variant's stock is the sum over its locations. `track_inventory` says which variants are counted
# at all: an untracked one's zeros are no stock figure (BigCommerce's `Track Inventory = none` alike).
_LOCATION_STOCK = re.compile(r"^(?:inventory|current quantity) (?P<place>\S.*)$")
_NOT_A_PLACE = re.compile(r"\b(?:qty|quantity|policy|tracker|tracking|status|level|value|cost|alert|warning)\b")
TRACK_INVENTORY = ("track inventory", "inventory tracked", "tracked")


def location_stock_columns(columns: list[str]) -> list[str]:
    """The per-location stock columns of a header (none when it names no location), e.g.
    `inventory_Basement`, `Current Quantity Main Street`; never a column that is a generic alias."""
    known = {alias for aliases in GENERIC_ROLES.values() for alias in aliases}
    out = []
    for column in columns:
        key = norm(column)
        found = _LOCATION_STOCK.match(key)
        if found and key not in known and not _NOT_A_PLACE.search(found.group("place")):
            out.append(column)
    return out


def track_inventory_column(columns: list[str]) -> str | None:
    """The column saying per variant whether its stock is tracked (Lightspeed's `track_inventory`)."""
    return next((column for column in columns if norm(column) in TRACK_INVENTORY), None)


# Columns that may carry the snapshot date, in order of preference (SPEC §4).
SNAPSHOT_COLUMNS = tuple(
    norm(n)
    for n in (
        "snapshot_date",
        "snapshot date",
        "snapshot",
        "as_of",
        "as of",
        "as_of_date",
        "as of date",
        "asof",
        "exported_at",
        "export_date",
        "export date",
        "export_time",
        "exported",
        "feed_date",
        "report_date",
        "extract_date",
        "extracted_at",
        "updated_at",
        "updated",
        "last_updated",
        "last updated",
        "last_modified",
        "last modified",
        "modified_at",
        "date_modified",
        "date modified",
        "date",
        # last resort: when nothing says when it was updated, the newest creation date still bounds the
        # snapshot from below (a Magento export with an empty updated_at still states created_at)
        "created_at",
        "created",
        "date_created",
        "date created",
        "date added",
        "creation_date",
    )
)
_DATEISH = re.compile(r"(^|\s)(date|dated|timestamp|datetime)($|\s)|\s(at|on|time)$")


@dataclass
class Detection:
    profile: Profile | None  # None = generic
    name: str
    score: float
    roles: dict[str, str]  # role -> actual column name (deduplicated header name)
    missing: tuple[str, ...] = ()  # the format's required columns this header lacks


def resolve_roles(columns: list[str], roles: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """Map each role to the first column whose normalised header is one of its aliases."""
    by_norm: dict[str, str] = {}
    for column in columns:
        by_norm.setdefault(norm(column), column)
    for column in columns:  # second chance without units and marks: "Active (0/1)", "Name *", "Weight (kg)"
        bare = norm(_PAREN.sub(" ", column).replace("*", " "))
        if bare:
            by_norm.setdefault(bare, column)
    from agent.catalog.values import header_currency  # (values imports pyarrow: only when headers are read)

    for column in columns:  # third chance without a currency code: "Price KZT", "Sale price USD"
        words = column.split()
        if len(words) > 1 and header_currency(words[-1]):
            by_norm.setdefault(norm(" ".join(words[:-1])), column)
    out: dict[str, str] = {}
    taken: set[str] = set()
    for role, aliases in roles.items():
        for alias in aliases:
            col = by_norm.get(alias)
            if col is not None and col not in taken:
                out[role] = col
                taken.add(col)
                break
    return out


def detect(columns: list[str]) -> Detection:
    """Score the header against every profile and the generic alias map; the best one wins."""
    usable = [column for column in columns if norm(column)]
    n = max(len(usable), 1)
    best: tuple[float, Profile | None] = (0.0, None)
    normed = {norm(column) for column in usable}
    for profile in PROFILES:
        if not normed & profile.distinctive or not _reads_products(usable, profile):
            continue
        score = sum(1 for column in usable if profile.knows(column)) / n
        if score > best[0]:
            best = (score, profile)
    generic_roles = resolve_roles(usable, GENERIC_ROLES)
    date_cols = snapshot_columns(usable)
    generic_score = (len(generic_roles) + len(date_cols)) / n
    score, chosen = best
    if chosen is not None and score >= generic_score:
        # precision chose the format; what is reported is how much of that format is there
        coverage, missing = chosen.coverage(usable)
        return Detection(chosen, chosen.name, coverage, resolve_roles(usable, chosen.roles), missing)
    return Detection(None, GENERIC_NAME, round(min(generic_score, 1.0), 3), generic_roles)


def _reads_products(columns: list[str], profile: Profile) -> bool:
    """Whether the format finds a product's name or price in this header: every export of a known format
    names one (its title column, its price column). A header that shares only a few names with a format
    is not that format: a Lightspeed (Vend) retail export (held-out leobrien2/mirour2 product-export.csv:
    `handle, sku, name, retail_price, brand_name, track_inventory, variant_option_one_name`) knows
    BigCommerce's `Track Inventory`, `Brand Name` and `Retail Price`, scored higher as BigCommerce than
    as a generic table, and was read with no title and no price on any of its 1,024 rows."""
    roles = resolve_roles(columns, profile.roles)
    return "title" in roles or "price" in roles


def snapshot_columns(columns: list[str]) -> list[str]:
    """Columns that may hold the snapshot date, most preferred first."""
    rank = {name: i for i, name in enumerate(SNAPSHOT_COLUMNS)}
    found = [(rank[norm(column)], column) for column in columns if norm(column) in rank]
    return [column for _, column in sorted(found)]


def date_like_columns(columns: list[str]) -> list[str]:
    """Every column whose name says it holds a date (listed in the overview's "date columns found")."""
    snap = set(snapshot_columns(columns))
    return [column for column in columns if column in snap or _DATEISH.search(norm(column))]
