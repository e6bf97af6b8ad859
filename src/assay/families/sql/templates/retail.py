"""Retail orders: customers, products, orders (imported without a foreign key) and order lines."""

from __future__ import annotations

import datetime as dt
import random

from assay.families.sql.templates._model import (
    Formats,
    Question,
    Schema,
    Template,
    inserts,
    moment,
    money,
    month_range,
    sql,
)

_CREATE = """\
-- An online shop: customers, the catalogue, orders and their lines. Amounts are in EUR.
CREATE TABLE customers (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  country TEXT NOT NULL,
  email TEXT
);

CREATE TABLE products (
  id INTEGER PRIMARY KEY,
  sku TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  category TEXT NOT NULL,
  list_price DECIMAL(10, 2) NOT NULL
);

-- customer_id has no foreign key: orders came over from the old shop system.
-- coupon is NULL when none was used; the old system wrote '' instead.
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL,
  placed_at TIMESTAMP NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('paid', 'shipped', 'cancelled', 'refunded')),
  coupon TEXT
);

CREATE TABLE order_lines (
  order_id INTEGER NOT NULL REFERENCES orders (id),
  product_id INTEGER NOT NULL REFERENCES products (id),
  quantity INTEGER NOT NULL CHECK (quantity > 0),
  unit_price DECIMAL(10, 2) NOT NULL,
  PRIMARY KEY (order_id, product_id)
);
"""
_NAMES = [
    "Ada Berg",
    "Bruno Costa",
    "Chen Wei",
    "Dana Novak",
    "Emeka Obi",
    "Freya Lund",
    "Gita Rao",
    "Hugo Blanc",
    "Ines Duarte",
    "Jonas Weber",
    "Kaito Sato",
    "Lena Fischer",
    "Mateo Ruiz",
    "Nora Haugen",
    "Omar Haddad",
    "Priya Nair",
    "Quinn Murphy",
    "Rosa Marin",
]
_COUNTRIES = ("DE", "FR", "ES", "NO", "PT", "JP")
_PRODUCTS = (
    ("Espresso beans 1 kg", "coffee", 24),
    ("Decaf beans 500 g", "coffee", 13),
    ("Filter papers", "accessories", 3),
    ("Milk jug", "accessories", 12),
    ("Burr grinder", "equipment", 89),
    ("Gooseneck kettle", "equipment", 45),
    ("Green tea 250 g", "tea", 8),
    ("Rooibos 250 g", "tea", 7),
    ("Gift card", "gifts", 25),
)
_PAID = "o.status IN ('paid', 'shipped')"


def _database(rng: random.Random) -> str:
    count = rng.randint(12, 18)
    customers = [
        (i, name, rng.choice(_COUNTRIES), None if rng.random() < 0.25 else f"c{i}@example.com")
        for i, name in enumerate(rng.sample(_NAMES, count), start=1)
    ]
    products = [
        (i, f"SKU-{100 + i}", name, category, money(rng, price, price + 5))
        for i, (name, category, price) in enumerate(_PRODUCTS, start=1)
    ]
    orders, lines = [], []
    for order in range(1, rng.randint(45, 70)):
        customer = rng.randint(1, count + 2)  # now and then one the shop no longer knows
        status = rng.choices(("paid", "shipped", "cancelled", "refunded"), (5, 4, 2, 1))[0]
        coupon = rng.choice((None, None, None, "", "WELCOME10", "SPRING"))
        orders.append((order, customer, moment(rng, dt.date(2023, 12, 1), 420), status, coupon))
        for product in rng.sample(products, rng.randint(1, 3)):
            price = product[4] if rng.random() < 0.8 else product[4] * 9 / 10
            lines.append((order, product[0], rng.randint(1, 3), round(price, 2)))
    return "\n".join(
        (
            _CREATE,
            inserts("customers", customers),
            inserts("products", products),
            inserts("orders", orders),
            inserts("order_lines", lines),
        )
    )


SCHEMA = Schema("retail", "shop.sql", "an online shop's customers, products and orders", _database)


def _period(
    rng: random.Random, f: Formats, kinds: tuple[str, ...] = ("month", "quarter", "half")
) -> tuple[dict[str, object], str]:
    first, last, _ = month_range(rng, kinds=kinds)
    values: dict[str, object] = {
        "start": first,
        "after": last + dt.timedelta(days=1),
        "last": last,
    }
    return values, f"from {f.date(first)} to {f.date(last)}, both days included"


def _revenue_by_category(rng: random.Random, f: Formats) -> Question:
    values, period = _period(rng, f)
    body = (
        "SELECT p.category, SUM(l.quantity * l.unit_price) AS revenue FROM order_lines AS l "
        "JOIN orders AS o ON o.id = l.order_id JOIN products AS p ON p.id = l.product_id "
        "WHERE {when} AND {paid} GROUP BY p.category ORDER BY revenue DESC"
    )
    good = "o.placed_at >= :start AND o.placed_at < :after"
    return Question(
        ask=f"What was the revenue of each product category for orders placed {period}?",
        spec=(
            "Revenue of a line is its quantity times the unit price it was sold at.",
            "Only paid and shipped orders count; cancelled and refunded ones do not.",
            "Return the category and its revenue, highest revenue first.",
        ),
        references={"reference": sql(body.format(when=good, paid=_PAID), **values)},
        bad={
            "date-boundary": sql(
                body.format(when="o.placed_at BETWEEN :start AND :last", paid=_PAID), **values
            ),
            "dropped-filter": sql(body.format(when=good, paid="1 = 1"), **values),
            "list-price": sql(
                body.format(when=good, paid=_PAID).replace("l.unit_price", "p.list_price"),
                **values,
            ),
        },
        tags=("join", "date-range", "order-by"),
    )


def _orders_per_customer(rng: random.Random, f: Formats) -> Question:
    values, period = _period(rng, f)
    values["country"] = rng.choice(_COUNTRIES)
    window = "o.placed_at >= :start AND o.placed_at < :after"
    reference = (
        "SELECT c.name, COUNT(o.id) AS orders FROM customers AS c LEFT JOIN orders AS o "  # noqa: S608 - template query text; values go through sql()
        f"ON o.customer_id = c.id AND {window} WHERE c.country = :country GROUP BY c.id, c.name"
    )
    return Question(
        ask=f"How many orders did each of our customers in {values['country']} place {period}? "
        "Customers who ordered nothing in that time should be listed with 0.",
        spec=(
            "Count every order whatever its status.",
            "Return the customer's name and the number of orders; the order of rows is free.",
        ),
        references={"reference": sql(reference, **values)},
        bad={
            "inner-join": sql(reference.replace("LEFT JOIN", "JOIN"), **values),
            "count-star": sql(reference.replace("COUNT(o.id)", "COUNT(*)"), **values),
            "filter-in-where": sql(
                reference.replace(f"AND {window} WHERE", f"WHERE {window} AND"), **values
            ),
            "dropped-filter": sql(reference.replace(" WHERE c.country = :country", ""), **values),
        },
        tags=("left-join", "group-by", "zero-rows"),
    )


def _customers_without_orders(rng: random.Random, f: Formats) -> Question:
    values, period = _period(rng, f)
    base = (
        "SELECT c.name FROM customers AS c WHERE NOT EXISTS (SELECT 1 FROM orders AS o "
        "WHERE o.customer_id = c.id AND o.placed_at >= :start AND o.placed_at < :after{extra})"
    )
    return Question(
        ask=f"Which customers did not order anything {period}? Just their names.",
        spec=(),
        references={
            "reference": sql(base.format(extra=""), **values),
            "reference-excluding-cancelled": sql(
                base.format(extra=" AND o.status <> 'cancelled'"), **values
            ),
        },
        bad={
            "date-boundary": sql(
                base.format(extra="").replace(
                    "o.placed_at >= :start AND o.placed_at < :after",
                    "o.placed_at > :start AND o.placed_at <= :last",
                ),
                **values,
            ),
            "filter-in-where": sql(
                "SELECT c.name FROM customers AS c LEFT JOIN orders AS o ON o.customer_id = c.id "
                "WHERE o.id IS NULL AND o.placed_at >= :start AND o.placed_at < :after",
                **values,
            ),
            "anti-join-on-all-time": sql(
                "SELECT c.name FROM customers AS c LEFT JOIN orders AS o ON o.customer_id = c.id "
                "WHERE o.id IS NULL",
                **values,
            ),
        },
        tags=("anti-join", "date-range", "underspecified"),
    )


def _top_products(rng: random.Random, f: Formats) -> Question:
    values, period = _period(rng, f)
    values["n"] = rng.randint(2, 4)
    ranked = (
        "WITH sold AS (SELECT p.name, SUM(l.quantity) AS units FROM order_lines AS l "  # noqa: S608 - template query text; values go through sql()
        "JOIN orders AS o ON o.id = l.order_id JOIN products AS p ON p.id = l.product_id "
        f"WHERE o.placed_at >= :start AND o.placed_at < :after AND {_PAID} GROUP BY p.name) "
    )
    reference = (
        ranked + "SELECT name, units FROM (SELECT name, units, RANK() OVER (ORDER BY units DESC) "  # noqa: S608 - template query text; values go through sql()
        "AS place FROM sold) AS r WHERE place <= :n ORDER BY units DESC"
    )
    return Question(
        ask=f"Which were our top {values['n']} products by units sold {period}?",
        spec=(
            "Only paid and shipped orders count.",
            f"A product tied with the one in place {values['n']} is in the list too.",
            "Return the product name and its units, most units first.",
        ),
        references={"reference": sql(reference, **values)},
        bad={
            "limit-cuts-ties": sql(
                ranked + "SELECT name, units FROM sold ORDER BY units DESC LIMIT :n",  # noqa: S608 - template query text; values go through sql()
                **values,
            ),
            "row-number": sql(reference.replace("RANK()", "ROW_NUMBER()"), **values),
            "dropped-filter": sql(reference.replace(f" AND {_PAID}", ""), **values),
        },
        tags=("window", "ties", "ranking"),
    )


def _countries_with_coupons(rng: random.Random, f: Formats) -> Question:
    values, period = _period(rng, f)
    reference = (
        "SELECT DISTINCT c.country FROM orders AS o JOIN customers AS c ON c.id = o.customer_id "
        "WHERE o.coupon IS NOT NULL AND o.coupon <> '' "
        "AND o.placed_at >= :start AND o.placed_at < :after"
    )
    return Question(
        ask=f"In which countries did customers use a coupon code {period}?",
        spec=(
            "An empty coupon code means no coupon was used.",
            "Return each country code once.",
        ),
        references={"reference": sql(reference, **values)},
        bad={
            "missing-distinct": sql(reference.replace("DISTINCT ", ""), **values),
            "empty-text-counted": sql(reference.replace(" AND o.coupon <> ''", ""), **values),
            "dropped-filter": sql(
                reference.replace(" AND o.placed_at >= :start AND o.placed_at < :after", ""),
                **values,
            ),
        },
        tags=("distinct", "null", "empty-text"),
    )


def _average_order_value(rng: random.Random, f: Formats) -> Question:
    values, period = _period(rng, f)
    totals = (
        "SELECT c.country, AVG(t.total) AS average_order FROM (SELECT o.id, o.customer_id, "  # noqa: S608 - template query text; values go through sql()
        "SUM(l.quantity * l.unit_price) AS total FROM orders AS o JOIN order_lines AS l "
        f"ON l.order_id = o.id WHERE {_PAID} AND o.placed_at >= :start AND o.placed_at < :after "
        "GROUP BY o.id, o.customer_id) AS t JOIN customers AS c ON c.id = t.customer_id "
        "GROUP BY c.country"
    )
    per_line = (
        "SELECT c.country, AVG(l.quantity * l.unit_price) AS average_order FROM orders AS o "  # noqa: S608 - template query text; values go through sql()
        "JOIN order_lines AS l ON l.order_id = o.id JOIN customers AS c ON c.id = o.customer_id "
        f"WHERE {_PAID} AND o.placed_at >= :start AND o.placed_at < :after GROUP BY c.country"
    )
    return Question(
        ask=f"What was the average order value per customer country {period}?",
        spec=(
            "An order's value is the sum of its lines (quantity times unit price).",
            "Only paid and shipped orders count.",
            "Return the country code and the average, one row per country with such orders.",
        ),
        references={"reference": sql(totals, **values)},
        bad={
            "average-of-lines": sql(per_line, **values),
            "dropped-filter": sql(totals.replace(f"WHERE {_PAID} AND", "WHERE"), **values),
        },
        tags=("subquery", "group-by", "average"),
    )


def _running_revenue(rng: random.Random, f: Formats) -> Question:
    values, period = _period(rng, f, ("quarter", "half"))
    monthly = (
        "WITH months AS (SELECT SUBSTR(CAST(o.placed_at AS TEXT), 1, 7) AS month, "  # noqa: S608 - template query text; values go through sql()
        "SUM(l.quantity * l.unit_price) AS revenue FROM orders AS o JOIN order_lines AS l "
        f"ON l.order_id = o.id WHERE {_PAID} AND o.placed_at >= :start AND o.placed_at < :after "
        "GROUP BY SUBSTR(CAST(o.placed_at AS TEXT), 1, 7)) "
        "SELECT month, revenue, SUM(revenue) OVER (ORDER BY month) AS running_total "
        "FROM months ORDER BY month"
    )
    return Question(
        ask=f"Month by month {period}: revenue and the running total since the first month.",
        spec=(
            "Months are written YYYY-MM; only paid and shipped orders count.",
            "Return month, revenue and running total, in month order.",
        ),
        references={"reference": sql(monthly, **values)},
        bad={
            "grand-total": sql(monthly.replace("OVER (ORDER BY month)", "OVER ()"), **values),
            "dropped-filter": sql(monthly.replace(f"WHERE {_PAID} AND", "WHERE"), **values),
            "date-boundary": sql(
                monthly.replace(
                    "o.placed_at >= :start AND o.placed_at < :after",
                    "o.placed_at BETWEEN :start AND :last",
                ),
                **values,
            ),
        },
        tags=("window", "running-total", "date-range"),
    )


TEMPLATES = (
    Template("retail-revenue-by-category", SCHEMA, "medium", _revenue_by_category),
    Template("retail-orders-per-customer", SCHEMA, "medium", _orders_per_customer),
    Template("retail-customers-without-orders", SCHEMA, "medium", _customers_without_orders),
    Template("retail-top-products", SCHEMA, "hard", _top_products),
    Template("retail-countries-with-coupons", SCHEMA, "easy", _countries_with_coupons),
    Template("retail-average-order-value", SCHEMA, "medium", _average_order_value),
    Template("retail-running-revenue", SCHEMA, "hard", _running_revenue),
)
