"""Templates over a key-value table: feeds, limits, reports, rollouts, backups, retries."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from decimal import Decimal

from assay.families.workflow.state import CloudState, TableState
from assay.families.workflow.templates._base import (
    COMPANIES,
    LOCALES,
    Draft,
    Facts,
    Reading,
    Template,
    Text,
    text,
)


def inventory_sync(rng: random.Random, locale_name: str) -> Draft:
    """A stock feed applied to a table: quantities set, zero deletes, unknown SKUs reported."""
    locale = LOCALES[locale_name]
    company = rng.choice(COMPANIES)
    bucket = f"{company}-feeds"
    skus = [f"SKU-{rng.randint(1000, 9999)}-{n}" for n in range(rng.randint(5, 8))]
    items = {
        s: {"sku": s, "name": f"item {n}", "quantity": rng.randint(1, 50)}
        for n, s in enumerate(skus)
    }
    listed = rng.sample(skus, rng.randint(2, len(skus) - 1))
    rows, unknown = [], []
    final = {s: dict(item) for s, item in items.items()}
    for number, sku in enumerate(listed):
        zero = number == 0 or (number > 1 and rng.random() < 0.3)  # at least one of each
        quantity = 0 if zero else rng.randint(1, 80)
        rows.append((sku, quantity))
        if quantity == 0:
            del final[sku]
        else:
            final[sku]["quantity"] = quantity
    stranger = f"SKU-{rng.randint(1000, 9999)}-new"
    rows.insert(rng.randint(0, len(rows)), (stranger, rng.randint(1, 9)))
    feed = f"stock/incoming/{rng.randint(2024, 2025)}-{rng.randint(1, 12):02d}-01.csv"
    body = (
        "\n".join(
            [f"sku{locale.delimiter}quantity"] + [f"{s}{locale.delimiter}{q}" for s, q in rows]
        )
        + "\n"
    )
    unknown.append(json.dumps({"sku": stranger, "feed": feed}))
    applied = "stock/applied/" + feed[len("stock/incoming/") :]
    return Draft(
        initial=CloudState(
            buckets={bucket: {feed: body}},
            queues={"inventory-unknown-sku": ()},
            tables={"inventory": TableState(hash_key="sku", items=tuple(items.values()))},
        ),
        expected=CloudState(
            buckets={bucket: {applied: body}},
            queues={"inventory-unknown-sku": tuple(unknown)},
            tables={"inventory": TableState(hash_key="sku", items=tuple(final.values()))},
        ),
        params={
            "BUCKET": bucket,
            "FEEDS": "stock/incoming/",
            "DONE": "stock/applied/",
            "TABLE": "inventory",
            "QUEUE": "inventory-unknown-sku",
            "DELIMITER": locale.delimiter,
        },
        facts=Facts(
            title=text(
                f"apply the stock feed in s3://{bucket}/stock/incoming/ to the inventory table",
                f"den Bestands-Feed in s3://{bucket}/stock/incoming/ auf die Inventartabelle "
                "anwenden",
                f"appliquer le flux de stock de s3://{bucket}/stock/incoming/ à la table "
                "d'inventaire",
            ),
            steps=(
                text(
                    f"A feed is a CSV with the header `sku{locale.delimiter}quantity`.",
                    f"Ein Feed ist eine CSV-Datei mit der Kopfzeile "
                    f"`sku{locale.delimiter}quantity`.",
                    f"Un flux est un CSV avec l'en-tête `sku{locale.delimiter}quantity`.",
                ),
                text(
                    "For a SKU in the `inventory` table: quantity 0 deletes its item, any other "
                    "quantity replaces the item's `quantity` (its other attributes stay).",
                    "Für eine SKU in der Tabelle `inventory`: Menge 0 löscht ihr Item, jede "
                    "andere Menge ersetzt `quantity` des Items (die übrigen Attribute bleiben).",
                    "Pour un SKU présent dans la table `inventory` : la quantité 0 supprime son "
                    "item, toute autre quantité remplace `quantity` de l'item (ses autres "
                    "attributs restent).",
                ),
                text(
                    'For a SKU not in the table, send `{"sku": "...", "feed": "<feed key>"}` to '
                    "`inventory-unknown-sku` and create nothing.",
                    'Für eine SKU, die nicht in der Tabelle steht, `{"sku": "...", "feed": '
                    '"<Schlüssel des Feeds>"}` an `inventory-unknown-sku` senden und nichts '
                    "anlegen.",
                    'Pour un SKU absent de la table, envoyer `{"sku": "...", "feed": "<clé du '
                    'flux>"}` à `inventory-unknown-sku` et ne rien créer.',
                ),
                text(
                    "Then move the feed to stock/applied/ (same file name). SKUs the feed does "
                    "not list are left alone.",
                    "Danach den Feed nach stock/applied/ verschieben (gleicher Dateiname). SKUs, "
                    "die der Feed nicht nennt, bleiben unberührt.",
                    "Ensuite déplacer le flux dans stock/applied/ (même nom). Les SKU que le "
                    "flux ne cite pas restent intacts.",
                ),
            ),
        ),
        bad={
            "zero-kept": (("        elif quantity == 0:\n", "        elif quantity < 0:\n"),),
            "feed-left-in-place": (("    s3.delete_object(Bucket=BUCKET, Key=key)\n", ""),),
            "overwrites-items": (
                (
                    "            table.update_item(\n",
                    "            table.put_item(Item={'sku': sku, 'quantity': quantity})\n"
                    "            table.update_item(\n",
                ),
            ),
        },
        locale=locale.name,
        tags=("s3", "dynamodb", "sqs"),
    )


def tenant_limits(rng: random.Random, locale: str) -> Draft:
    """Tenants' limits set from a plan table in the bucket, for the plans it lists."""
    company = rng.choice(COMPANIES)
    bucket = f"{company}-config"
    plans = {
        "free": rng.choice((100, 250)),
        "pro": rng.choice((1000, 5000)),
        "team": rng.choice((10000, 20000)),
    }
    listed = dict(rng.sample(sorted(plans.items()), 2))
    tenants, final = [], []
    for n in range(rng.randint(5, 9)):
        plan = rng.choice((*plans, "enterprise"))
        item = {
            "tenant": f"t-{rng.randint(100, 999)}-{n}",
            "plan": plan,
            "api_limit": rng.choice((50, 100, 1000, 99999)),
        }
        tenants.append(item)
        final.append({**item, "api_limit": listed[plan]} if plan in listed else item)
    return Draft(
        initial=CloudState(
            buckets={bucket: {"plans/limits.json": json.dumps(listed)}},
            tables={"tenants": TableState(hash_key="tenant", items=tuple(tenants))},
        ),
        expected=CloudState(
            buckets={bucket: {"plans/limits.json": json.dumps(listed)}},
            tables={"tenants": TableState(hash_key="tenant", items=tuple(final))},
        ),
        params={
            "BUCKET": bucket,
            "KEY": "plans/limits.json",
            "TABLE": "tenants",
            "ATTRIBUTE": "api_limit",
        },
        facts=Facts(
            title=text(
                "bring the tenants' API limits in line with the plan limits",
                "die API-Limits der Mandanten an die Limits ihrer Tarife angleichen",
                "aligner les limites d'API des clients sur les limites de leurs offres",
            ),
            steps=(
                text(
                    f"`s3://{bucket}/plans/limits.json` maps plan names to API limits.",
                    f"`s3://{bucket}/plans/limits.json` ordnet Tarifnamen API-Limits zu.",
                    f"`s3://{bucket}/plans/limits.json` associe les noms d'offres aux limites "
                    "d'API.",
                ),
                text(
                    "Set `api_limit` of every tenant in `tenants` whose plan is listed there to "
                    "that plan's limit; tenants of other plans keep theirs. Change no other "
                    "attribute.",
                    "`api_limit` jedes Mandanten in `tenants`, dessen Tarif dort steht, auf das "
                    "Limit dieses Tarifs setzen; Mandanten anderer Tarife behalten ihres. Kein "
                    "anderes Attribut ändern.",
                    "Mettre `api_limit` de chaque client de `tenants` dont l'offre y figure à la "
                    "limite de cette offre ; les clients des autres offres gardent la leur. Ne "
                    "changer aucun autre attribut.",
                ),
            ),
        ),
        bad={
            "unlisted-plans-zeroed": (
                (
                    "        if plan in limits and item.get(ATTRIBUTE) != limits[plan]:\n",
                    "        limits.setdefault(plan, 0)\n"
                    "        if item.get(ATTRIBUTE) != limits[plan]:\n",
                ),
            ),
            "wrong-attribute": (
                (
                    'ExpressionAttributeNames={"#a": ATTRIBUTE}',
                    'ExpressionAttributeNames={"#a": "limit"}',
                ),
            ),
            "replaces-items": (
                (
                    "            table.update_item(\n",
                    "            table.put_item(Item={'tenant': item['tenant'], "
                    "ATTRIBUTE: limits[plan]})\n"
                    "            table.update_item(\n",
                ),
            ),
        },
        locale=locale,
        tags=("s3", "dynamodb"),
    )


def monthly_report(rng: random.Random, locale: str) -> Draft:
    """One month's totals per customer, from a transactions table, as a CSV in the bucket."""
    company = rng.choice(COMPANIES)
    bucket = f"{company}-finance"
    month = f"2024-{rng.randint(2, 11):02d}"
    previous = f"2024-{int(month[5:]) - 1:02d}"
    customers = [f"cust-{rng.randint(100, 999)}-{n}" for n in range(rng.randint(3, 5))]
    items: list[dict[str, object]] = []
    totals: defaultdict[str, Decimal] = defaultdict(Decimal)
    for n in range(rng.randint(8, 14)):
        day = f"{rng.choice((month, month, previous)) if n > 1 else month}-{rng.randint(1, 28):02d}"
        customer = customers[n] if n < 2 else rng.choice(customers)
        cents = rng.randint(100, 99999)
        items.append(
            {"txn_id": f"tx-{n:03d}", "customer": customer, "amount": cents / 100, "date": day}
        )
        if day.startswith(month):
            totals[customer] += Decimal(cents) / 100
    report = "\n".join(["customer,total"] + [f"{c},{totals[c]:.2f}" for c in sorted(totals)]) + "\n"
    key = f"reports/{month}.csv"
    old = {f"reports/{previous}.csv": "customer,total\n"}
    table = TableState(hash_key="txn_id", items=tuple(items))
    return Draft(
        initial=CloudState(buckets={bucket: dict(old)}, tables={"transactions": table}),
        expected=CloudState(buckets={bucket: {**old, key: report}}, tables={"transactions": table}),
        params={"TABLE": "transactions", "MONTH": month, "BUCKET": bucket, "KEY": key},
        facts=Facts(
            title=text(
                f"write the {month} totals report to s3://{bucket}/{key}",
                f"den Summenbericht für {month} nach s3://{bucket}/{key} schreiben",
                f"écrire le rapport des totaux de {month} dans s3://{bucket}/{key}",
            ),
            steps=(
                text(
                    "Sum `amount` per customer over the items of `transactions` whose `date` "
                    f"(YYYY-MM-DD) falls in {month}.",
                    "`amount` pro Kunde über die Items von `transactions` summieren, deren "
                    f"`date` (YYYY-MM-DD) in {month} fällt.",
                    "Additionner `amount` par client sur les items de `transactions` dont la "
                    f"`date` (YYYY-MM-DD) tombe en {month}.",
                ),
                text(
                    f"Write `{key}`: a CSV with the header `customer,total`, one row per "
                    "customer with at least one transaction that month, sorted by customer, "
                    "totals with two decimals and a point, each line ending with a newline.",
                    f"`{key}` schreiben: eine CSV-Datei mit der Kopfzeile `customer,total`, eine "
                    "Zeile pro Kunde mit mindestens einer Transaktion in dem Monat, nach Kunde "
                    "sortiert, Summen mit zwei Nachkommastellen und Punkt, jede Zeile mit einem "
                    "Zeilenumbruch am Ende.",
                    f"Écrire `{key}` : un CSV avec l'en-tête `customer,total`, une ligne par "
                    "client ayant au moins une transaction ce mois-là, triée par client, totaux "
                    "avec deux décimales et un point, chaque ligne terminée par un saut de ligne.",
                ),
            ),
        ),
        bad={
            "all-months": (('if str(item["date"]).startswith(MONTH):', "if True:"),),
            "reverse-sorted": (
                ("for c in sorted(totals)]", "for c in sorted(totals, reverse=True)]"),
            ),
            "rounded-totals": (("{totals[c]:.2f}", "{totals[c]:.0f}"),),
        },
        locale=locale,
        tags=("dynamodb", "s3"),
    )


def feature_rollout(rng: random.Random, locale: str) -> Draft:
    """A flag turned on for the tenants a rollout file lists, and only for them."""
    company = rng.choice(COMPANIES)
    bucket = f"{company}-rollouts"
    flag = rng.choice(("beta_search", "new_billing", "dark_mode"))
    tenants = [f"tenant-{rng.randint(100, 999)}-{n}" for n in range(rng.randint(5, 9))]
    items = [
        {"tenant": t, "plan": rng.choice(("free", "pro")), "region": rng.choice(("eu", "us"))}
        for t in tenants
    ]
    wave = rng.sample(tenants, rng.randint(2, len(tenants) - 2))
    missing = f"tenant-{rng.randint(100, 999)}-gone"
    listing = "# wave 3\n" + "".join(f"{t}\n" for t in [*wave, "", missing])
    final = [{**item, flag: True} if item["tenant"] in wave else item for item in items]
    key = "waves/wave-3.txt"
    return Draft(
        initial=CloudState(
            buckets={bucket: {key: listing}},
            tables={"tenant-flags": TableState(hash_key="tenant", items=tuple(items))},
        ),
        expected=CloudState(
            buckets={bucket: {key: listing}},
            tables={"tenant-flags": TableState(hash_key="tenant", items=tuple(final))},
        ),
        params={"BUCKET": bucket, "KEY": key, "TABLE": "tenant-flags", "FLAG": flag},
        facts=Facts(
            title=text(
                f"turn on `{flag}` for the tenants of rollout wave 3",
                f"`{flag}` für die Mandanten der Rollout-Welle 3 einschalten",
                f"activer `{flag}` pour les clients de la vague de déploiement 3",
            ),
            steps=(
                text(
                    f"`s3://{bucket}/{key}` lists tenant ids, one a line (lines starting with # "
                    "are comments).",
                    f"`s3://{bucket}/{key}` listet Mandanten-IDs, eine pro Zeile (Zeilen, die "
                    "mit # beginnen, sind Kommentare).",
                    f"`s3://{bucket}/{key}` liste des identifiants de clients, un par ligne (les "
                    "lignes commençant par # sont des commentaires).",
                ),
                text(
                    f"For each listed tenant that has an item in `tenant-flags`, set its "
                    f"attribute `{flag}` to true, keeping its other attributes. Create no items "
                    "for tenants that have none; leave every other tenant as it is.",
                    f"Für jeden gelisteten Mandanten mit einem Item in `tenant-flags` das "
                    f"Attribut `{flag}` auf true setzen, die übrigen Attribute behalten. Für "
                    "Mandanten ohne Item keines anlegen; alle anderen Mandanten bleiben, wie sie "
                    "sind.",
                    f"Pour chaque client listé qui a un item dans `tenant-flags`, mettre son "
                    f"attribut `{flag}` à true en gardant ses autres attributs. Ne créer aucun "
                    "item pour les clients qui n'en ont pas ; laisser tous les autres clients "
                    "tels quels.",
                ),
            ),
        ),
        bad={
            "enables-everyone": (
                (
                    "for tenant in tenants:\n",
                    "for tenant in [i['tenant'] for i in table.scan()['Items']]:\n",
                ),
            ),
            "creates-missing": (
                ('    if "Item" in table.get_item(Key={"tenant": tenant}):\n', "    if True:\n"),
            ),
            "replaces-items": (
                (
                    "        table.update_item(\n",
                    "        table.put_item(Item={'tenant': tenant})\n        table.update_item(\n",
                ),
            ),
        },
        locale=locale,
        tags=("s3", "dynamodb"),
    )


def table_backup(rng: random.Random, locale: str) -> Draft:
    """A table backed up to the bucket as JSON Lines, once."""
    company = rng.choice(COMPANIES)
    bucket = f"{company}-backups"
    day = f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    items = [
        {
            "customer_id": f"c-{rng.randint(1000, 9999)}-{n}",
            "name": rng.choice(("Ana", "Bo", "Chen", "Dee")),
            "orders": rng.randint(0, 40),
        }
        for n in range(rng.randint(4, 8))
    ]
    lines = "".join(
        json.dumps(i, sort_keys=True) + "\n" for i in sorted(items, key=lambda i: i["customer_id"])
    )
    key = f"dynamodb/customers/{day}.jsonl"
    old = {"dynamodb/customers/2023-12-31.jsonl": "{}\n", f"{key}.partial": "{}\n"}
    table = TableState(hash_key="customer_id", items=tuple(items))
    return Draft(
        initial=CloudState(buckets={bucket: dict(old)}, tables={"customers": table}),
        expected=CloudState(buckets={bucket: {**old, key: lines}}, tables={"customers": table}),
        params={"TABLE": "customers", "BUCKET": bucket, "KEY": key},
        facts=Facts(
            title=text(
                f"back up the `customers` table to s3://{bucket}/{key}",
                f"die Tabelle `customers` nach s3://{bucket}/{key} sichern",
                f"sauvegarder la table `customers` dans s3://{bucket}/{key}",
            ),
            steps=(
                text(
                    "Write every item of `customers` as one JSON object a line, sorted by "
                    "customer_id, each line as Python's `json.dumps(item, sort_keys=True)` "
                    "writes it (numbers without a decimal part as integers) and ending with a "
                    "newline.",
                    "Jedes Item von `customers` als ein JSON-Objekt pro Zeile schreiben, nach "
                    "customer_id sortiert, jede Zeile so, wie Pythons "
                    "`json.dumps(item, sort_keys=True)` sie schreibt (Zahlen ohne "
                    "Nachkommaanteil als ganze Zahlen), mit einem Zeilenumbruch am Ende.",
                    "Écrire chaque item de `customers` comme un objet JSON par ligne, trié par "
                    "customer_id, chaque ligne telle que l'écrit "
                    "`json.dumps(item, sort_keys=True)` de Python (les nombres sans partie "
                    "décimale en entiers) et terminée par un saut de ligne.",
                ),
                text(
                    "If that backup object already exists, do nothing.",
                    "Wenn dieses Sicherungsobjekt schon existiert, nichts tun.",
                    "Si cet objet de sauvegarde existe déjà, ne rien faire.",
                ),
            ),
        ),
        bad={
            "reverse-sorted": (
                (
                    'key=lambda item: str(item["customer_id"]))',
                    'key=lambda item: str(item["customer_id"]), reverse=True)',
                ),
            ),
            "compact-separators": (
                ("sort_keys=True)\n", "sort_keys=True, separators=(',', ':'))\n"),
            ),
            "first-item-only": (
                ('        items += page["Items"]\n', '        items += page["Items"][:1]\n'),
            ),
        },
        locale=locale,
        tags=("dynamodb", "s3"),
    )


def job_retry(rng: random.Random, locale: str) -> Draft:
    """Failed jobs under the attempt limit queued again and marked so."""
    limit = rng.choice((3, 5))
    jobs: list[dict[str, object]] = []
    for n in range(rng.randint(5, 9)):
        jobs.append(
            {
                "job_id": f"job-{rng.randint(1000, 9999)}-{n}",
                "status": rng.choice(("FAILED", "FAILED", "DONE", "RUNNING")),
                "attempts": rng.randint(1, limit),
            }
        )
    jobs.append({"job_id": "job-0000-x", "status": "FAILED", "attempts": limit})
    if not any(j["status"] == "FAILED" and int(str(j["attempts"])) < limit for j in jobs):
        jobs.append({"job_id": "job-0001-y", "status": "FAILED", "attempts": 1})
    initial = CloudState(
        queues={"jobs-retry": ()},
        tables={"jobs": TableState(hash_key="job_id", items=tuple(jobs))},
    )

    def retried(most: int) -> CloudState:
        final, sent = [], []
        for job in jobs:
            attempts = int(str(job["attempts"]))
            if job["status"] == "FAILED" and attempts <= most:
                final.append({**job, "status": "QUEUED", "attempts": attempts + 1})
                sent.append(json.dumps({"job_id": job["job_id"]}))
            else:
                final.append(job)
        return CloudState(
            queues={"jobs-retry": tuple(sent)},
            tables={"jobs": TableState(hash_key="job_id", items=tuple(final))},
        )

    title = text(
        "retry the failed jobs",
        "die fehlgeschlagenen Jobs neu starten",
        "relancer les jobs en échec",
    )
    retry = text(
        'set its status to QUEUED, add one to `attempts`, and send `{"job_id": "..."}` to '
        "`jobs-retry`.",
        "seinen Status auf QUEUED setzen, `attempts` um eins erhöhen und "
        '`{"job_id": "..."}` an `jobs-retry` senden.',
        "passer son statut à QUEUED, ajouter un à `attempts` et envoyer "
        '`{"job_id": "..."}` à `jobs-retry`.',
    )
    which = text(
        f"For every item of `jobs` with status FAILED and fewer than {limit} attempts:",
        f"Für jedes Item von `jobs` mit Status FAILED und weniger als {limit} Versuchen:",
        f"Pour chaque item de `jobs` au statut FAILED avec moins de {limit} tentatives :",
    )
    vaguely = text(
        f"For every item of `jobs` with status FAILED that is still within the limit of {limit} "
        "attempts:",
        f"Für jedes Item von `jobs` mit Status FAILED, das noch im Limit von {limit} Versuchen "
        "liegt:",
        f"Pour chaque item de `jobs` au statut FAILED encore dans la limite de {limit} "
        "tentatives :",
    )
    others = text(
        "Jobs in other states are not touched.",
        "Jobs in anderen Zuständen werden nicht angefasst.",
        "Les jobs dans d'autres états ne sont pas touchés.",
    )
    stays = text(
        f"Jobs at {limit} attempts stay FAILED; jobs in other states are not touched.",
        f"Jobs mit {limit} Versuchen bleiben FAILED; Jobs in anderen Zuständen werden nicht "
        "angefasst.",
        f"Les jobs à {limit} tentatives restent FAILED ; les jobs dans d'autres états ne sont "
        "pas touchés.",
    )
    return Draft(
        initial=initial,
        expected=retried(limit - 1),
        params={"TABLE": "jobs", "QUEUE": "jobs-retry", "MAX_ATTEMPTS": limit},
        facts=Facts(title=title, steps=(_joined(which, retry), stays)),
        vague=Facts(title=title, steps=(_joined(vaguely, retry), others)),
        readings=(
            Reading(
                "at-limit-too",
                retried(limit),
                (('int(job["attempts"]) < MAX_ATTEMPTS', 'int(job["attempts"]) <= MAX_ATTEMPTS'),),
                allows=("ignores-limit",),
            ),
        ),
        bad={
            "ignores-limit": (('and int(job["attempts"]) < MAX_ATTEMPTS', ""),),
            "status-unchanged": (('":queued": "QUEUED"', '":queued": "FAILED"'),),
            "no-message": (
                (
                    "            sqs.send_message(QueueUrl=url, "
                    'MessageBody=json.dumps({"job_id": job["job_id"]}))\n',
                    "",
                ),
            ),
        },
        locale=locale,
        tags=("dynamodb", "sqs"),
    )


def _joined(first: Text, second: Text) -> Text:
    return {language: f"{first[language]} {second[language]}" for language in first}


TEMPLATES = (
    Template("inventory-sync", ("s3", "dynamodb", "sqs"), "medium", inventory_sync),
    Template("tenant-limits", ("s3", "dynamodb"), "easy", tenant_limits),
    Template("monthly-report", ("dynamodb", "s3"), "medium", monthly_report),
    Template("feature-rollout", ("s3", "dynamodb"), "easy", feature_rollout),
    Template("table-backup", ("dynamodb", "s3"), "medium", table_backup),
    Template("job-retry", ("dynamodb", "sqs"), "easy", job_retry),
)
