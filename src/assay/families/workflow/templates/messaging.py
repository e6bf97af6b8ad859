"""Templates over queues: redriving a dead-letter queue, order intake, de-duplication."""

from __future__ import annotations

import json
import random

from assay.families.workflow.state import CloudState, TableState
from assay.families.workflow.templates._base import LOCALES, Draft, Facts, Template, text


def dlq_redrive(rng: random.Random, locale_name: str) -> Draft:
    """Payments in a dead-letter queue fixed (amount a number, currency upper case) and sent
    back; the unfixable stay."""
    locale = LOCALES[locale_name]
    currency = locale.currency
    stuck, fixed, unfixable = [], [], []
    for number in range(rng.randint(4, 8)):
        payment_id = f"pay-{rng.randint(100000, 999999)}-{number}"
        cents = rng.randint(100, 90000)
        amount = (
            locale.amount(cents).replace(".", "") if locale.decimal_comma else locale.amount(cents)
        )
        if rng.random() < 0.25:
            body = json.dumps({"amount": amount, "currency": currency.lower()})
            stuck.append(body)
            unfixable.append(body)
            continue
        stuck.append(
            json.dumps({"payment_id": payment_id, "amount": amount, "currency": currency.lower()})
        )
        fixed.append(
            json.dumps(
                {"payment_id": payment_id, "amount": locale.value(cents), "currency": currency}
            )
        )
    if not unfixable:
        body = json.dumps({"payment_id": "pay-0", "amount": "twelve", "currency": currency.lower()})
        stuck.append(body)
        unfixable.append(body)
    if not fixed:
        stuck.append(json.dumps({"payment_id": "pay-1", "amount": "5", "currency": "usd"}))
        fixed.append(json.dumps({"payment_id": "pay-1", "amount": 5.0, "currency": "USD"}))
    earlier = (json.dumps({"payment_id": "pay-9", "amount": 1.0, "currency": currency}),)
    initial = CloudState(queues={"payments-dlq": tuple(stuck), "payments": earlier})
    expected = CloudState(
        queues={"payments-dlq": tuple(unfixable), "payments": earlier + tuple(fixed)}
    )
    comma = locale.decimal_comma
    return Draft(
        initial=initial,
        expected=expected,
        params={"DLQ": "payments-dlq", "TARGET": "payments", "DECIMAL_COMMA": locale.decimal_comma},
        facts=Facts(
            title=text(
                "drain the payments dead-letter queue back into `payments`",
                "die Dead-Letter-Queue der Zahlungen zurück nach `payments` leeren",
                "vider la file des lettres mortes des paiements vers `payments`",
            ),
            steps=(
                text(
                    "The messages in `payments-dlq` failed because of a bad producer: `amount` "
                    f"is a string{' (written with a decimal comma)' if comma else ''} and "
                    "`currency` is lower case.",
                    "Die Nachrichten in `payments-dlq` sind wegen eines fehlerhaften Producers "
                    f"gescheitert: `amount` ist ein String{' (mit Dezimalkomma)' if comma else ''}"
                    " und `currency` steht in Kleinbuchstaben.",
                    "Les messages de `payments-dlq` ont échoué à cause d'un producteur fautif : "
                    f"`amount` est une chaîne{' (avec une virgule décimale)' if comma else ''} et "
                    "`currency` est en minuscules.",
                ),
                text(
                    'For each, send `{"payment_id": "...", "amount": <number>, "currency": '
                    '"<UPPER>"}` (JSON) to `payments` and delete it from the dead-letter queue.',
                    'Für jede `{"payment_id": "...", "amount": <Zahl>, "currency": "<GROSS>"}` '
                    "(JSON) an `payments` senden und sie aus der Dead-Letter-Queue löschen.",
                    'Pour chacun, envoyer `{"payment_id": "...", "amount": <nombre>, "currency": '
                    '"<MAJUSCULES>"}` (JSON) à `payments` et le supprimer de la file des lettres '
                    "mortes.",
                ),
                text(
                    "A message without a payment_id, or whose amount is not a number, cannot be "
                    "fixed: leave it in `payments-dlq`, visible again when you are done.",
                    "Eine Nachricht ohne payment_id oder mit einem Betrag, der keine Zahl ist, "
                    "lässt sich nicht reparieren: in `payments-dlq` lassen, am Ende wieder "
                    "sichtbar.",
                    "Un message sans payment_id, ou dont le montant n'est pas un nombre, ne peut "
                    "pas être corrigé : le laisser dans `payments-dlq`, de nouveau visible à la "
                    "fin.",
                ),
            ),
        ),
        bad={
            "forwards-unfixed": (
                ("MessageBody=json.dumps(payment)", 'MessageBody=message["Body"]'),
            ),
            "keeps-fixed-in-dlq": (
                (
                    "        sqs.delete_message(QueueUrl=dlq, "
                    'ReceiptHandle=message["ReceiptHandle"])\n',
                    "",
                ),
            ),
            "drops-unfixable": (
                (
                    '            kept.append(message["ReceiptHandle"])\n',
                    "            sqs.delete_message(QueueUrl=dlq, "
                    'ReceiptHandle=message["ReceiptHandle"])\n',
                ),
            ),
            "leaves-unfixable-in-flight": (
                (
                    "for handle in kept:\n    sqs.change_message_visibility(",
                    "for handle in []:\n    sqs.change_message_visibility(",
                ),
            ),
        },
        locale=locale.name,
        tags=("sqs",),
    )


def order_intake(rng: random.Random, locale_name: str) -> Draft:
    """Orders taken off a queue into a table; express orders also sent to their queue."""
    locale = LOCALES[locale_name]
    bodies, items, express = [], [], []
    for number in range(rng.randint(3, 7)):
        order_id = f"o-{rng.randint(10000, 99999)}-{number}"
        customer = f"cust-{rng.randint(100, 999)}"
        total = locale.value(rng.randint(500, 50000))
        priority = rng.choice(("standard", "standard", "express"))
        bodies.append(
            json.dumps(
                {"order_id": order_id, "customer": customer, "total": total, "priority": priority}
            )
        )
        items.append(
            {"order_id": order_id, "customer": customer, "total": total, "status": "received"}
        )
        if priority == "express":
            express.append(json.dumps({"order_id": order_id}))
    old = {"order_id": "o-00001", "customer": "cust-001", "total": 10.0, "status": "shipped"}
    table = TableState(hash_key="order_id", items=(old,))
    initial = CloudState(
        queues={"orders-incoming": tuple(bodies), "orders-express": ()},
        tables={"orders": table},
    )
    expected = CloudState(
        queues={"orders-incoming": (), "orders-express": tuple(express)},
        tables={"orders": TableState(hash_key="order_id", items=(old, *items))},
    )
    return Draft(
        initial=initial,
        expected=expected,
        params={"INTAKE": "orders-incoming", "EXPRESS": "orders-express", "TABLE": "orders"},
        facts=Facts(
            title=text(
                "take the new orders off `orders-incoming` into the `orders` table",
                "die neuen Bestellungen aus `orders-incoming` in die Tabelle `orders` übernehmen",
                "reprendre les nouvelles commandes de `orders-incoming` dans la table `orders`",
            ),
            steps=(
                text(
                    "Each message is a JSON order with order_id, customer, total and priority.",
                    "Jede Nachricht ist eine Bestellung als JSON mit order_id, customer, total "
                    "und priority.",
                    "Chaque message est une commande JSON avec order_id, customer, total et "
                    "priority.",
                ),
                text(
                    "Write an item to `orders` with order_id, customer, total (a number) and "
                    'status `"received"` (no priority attribute).',
                    "Ein Item in `orders` schreiben mit order_id, customer, total (eine Zahl) "
                    'und status `"received"` (ohne Attribut priority).',
                    "Écrire un item dans `orders` avec order_id, customer, total (un nombre) et "
                    'status `"received"` (sans attribut priority).',
                ),
                text(
                    'For an order whose priority is `"express"`, also send `{"order_id": "..."}` '
                    "to `orders-express`.",
                    'Bei einer Bestellung mit priority `"express"` zusätzlich '
                    '`{"order_id": "..."}` an `orders-express` senden.',
                    'Pour une commande dont la priority est `"express"`, envoyer aussi '
                    '`{"order_id": "..."}` à `orders-express`.',
                ),
                text(
                    "Delete each message from `orders-incoming` once it is handled.",
                    "Jede Nachricht aus `orders-incoming` löschen, sobald sie erledigt ist.",
                    "Supprimer chaque message de `orders-incoming` une fois traité.",
                ),
            ),
        ),
        bad={
            "keeps-handled-messages": (
                (
                    "        sqs.delete_message(QueueUrl=intake, "
                    'ReceiptHandle=message["ReceiptHandle"])\n',
                    "",
                ),
            ),
            "express-for-all": (('if order.get("priority") == "express":', "if True:"),),
            "skips-express": (('if order.get("priority") == "express":', "if False:"),),
        },
        locale=locale.name,
        tags=("sqs", "dynamodb"),
    )


def event_dedupe(rng: random.Random, locale: str) -> Draft:
    """Events moved from a raw queue to a clean one once each; the duplicates counted."""
    events = [
        json.dumps(
            {
                "event_id": f"evt-{rng.randint(10000, 99999)}-{n}",
                "type": rng.choice(("click", "view", "buy")),
            }
        )
        for n in range(rng.randint(3, 6))
    ]
    raw = list(events) + [rng.choice(events) for _ in range(rng.randint(1, 4))]
    rng.shuffle(raw)
    earlier = (json.dumps({"event_id": "evt-0", "type": "view"}),)
    group = "/ops/dedupe"
    summary = json.dumps({"unique": len(events), "duplicates": len(raw) - len(events)})
    return Draft(
        initial=CloudState(
            queues={"events-raw": tuple(raw), "events-clean": earlier}, logs={group: {}}
        ),
        expected=CloudState(
            queues={"events-raw": (), "events-clean": earlier + tuple(events)},
            logs={group: {"runs": (summary,)}},
        ),
        params={
            "RAW": "events-raw",
            "CLEAN": "events-clean",
            "LOG_GROUP": group,
            "LOG_STREAM": "runs",
        },
        facts=Facts(
            title=text(
                "de-duplicate the events waiting in `events-raw`",
                "die Events in `events-raw` deduplizieren",
                "dédoublonner les événements en attente dans `events-raw`",
            ),
            steps=(
                text(
                    "Move every event from `events-raw` to `events-clean`, each event_id once "
                    "(the body unchanged); duplicates are dropped. `events-raw` ends empty.",
                    "Jedes Event von `events-raw` nach `events-clean` verschieben, jede event_id "
                    "nur einmal (Inhalt unverändert); Duplikate werden verworfen. `events-raw` "
                    "ist danach leer.",
                    "Déplacer chaque événement de `events-raw` vers `events-clean`, chaque "
                    "event_id une seule fois (contenu inchangé) ; les doublons sont écartés. "
                    "`events-raw` finit vide.",
                ),
                text(
                    f"If there were any events, put one event on the stream `runs` of `{group}` "
                    '(create the stream): `{"unique": <sent>, "duplicates": <dropped>}`.',
                    f"Wenn es Events gab, ein Ereignis in den Stream `runs` von `{group}` "
                    'schreiben (den Stream anlegen): `{"unique": <gesendet>, "duplicates": '
                    "<verworfen>}`.",
                    f"S'il y avait des événements, écrire un événement dans le flux `runs` de "
                    f'`{group}` (créer le flux) : `{{"unique": <envoyés>, "duplicates": '
                    "<écartés>}`.",
                ),
            ),
        ),
        bad={
            "keeps-duplicates": (("    if event_id not in seen:\n", "    if True:\n"),),
            "skips-summary": (("if received:", "if not received:"),),
            "leaves-raw": (
                (
                    "    sqs.delete_message(QueueUrl=raw, "
                    'ReceiptHandle=message["ReceiptHandle"])\n',
                    "    pass\n",
                ),
            ),
        },
        locale=locale,
        tags=("sqs", "logs"),
    )


TEMPLATES = (
    Template("dlq-redrive", ("sqs",), "medium", dlq_redrive),
    Template("order-intake", ("sqs", "dynamodb"), "medium", order_intake),
    Template("event-dedupe", ("sqs", "logs"), "medium", event_dedupe),
)
