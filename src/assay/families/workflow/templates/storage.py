"""Templates over object storage: routing, archiving, cleaning up, migrating, scanning."""

from __future__ import annotations

import json
import random

from assay.families.workflow.state import CloudState
from assay.families.workflow.templates._base import (
    COMPANIES,
    LOCALES,
    Draft,
    Facts,
    Reading,
    Template,
    text,
)


def invoice_routing(rng: random.Random, locale_name: str) -> Draft:
    """Invoice CSVs routed to per-region queues; malformed files quarantined; a summary log."""
    locale = LOCALES[locale_name]
    company = rng.choice(COMPANIES)
    bucket, group = f"{company}-invoices", f"/ops/{company}/invoice-router"
    regions = list(locale.regions[: rng.randint(2, 3)])
    header = locale.delimiter.join(["invoice_id", "region", "amount"])
    incoming: dict[str, str] = {}
    processed: dict[str, str] = {}
    quarantine: dict[str, str] = {}
    queues: dict[str, list[str]] = {f"invoices-{region}": [] for region in regions}
    count = rng.randint(4, 7)
    bad_at = set(rng.sample(range(count), rng.randint(1, 2)))
    for number in range(count):
        name = f"{2024 + number % 2}-{rng.randint(1, 12):02d}-batch-{number:02d}.csv"
        rows, messages = [], []
        for line in range(rng.randint(1, 3)):
            invoice_id = f"INV-{rng.randint(10000, 99999)}-{line}"
            region, cents = rng.choice(regions), rng.randint(500, 250000)
            rows.append(locale.delimiter.join([invoice_id, region, locale.amount(cents)]))
            messages.append((region, {"invoice_id": invoice_id, "amount": locale.value(cents)}))
        valid = list(rows)
        if number in bad_at:
            rows[0] = rng.choice(
                [
                    rows[0].replace(rows[0].split(locale.delimiter)[1], "atlantis"),
                    locale.delimiter.join([rows[0].split(locale.delimiter)[0], regions[0], "n/a"]),
                ]
            )
        body = "\n".join([header, *rows]) + "\n"
        if number == min(bad_at):  # well-formed rows under a header with one column more
            body = "\n".join(line + locale.delimiter + "x" for line in [header, *valid]) + "\n"
        elif number in bad_at and rng.random() < 0.3:
            body = "invoice;region;amount;\nsee attachment\n"
        incoming[f"incoming/{name}"] = body
        if number in bad_at:
            quarantine[f"quarantine/{name}"] = body
        else:
            processed[f"processed/{name}"] = body
            for region, message in messages:
                queues[f"invoices-{region}"].append(json.dumps(message))
    routed = sum(len(v) for v in queues.values())
    keep = {"README.txt": "Drop invoice CSVs in incoming/.\n"}
    initial = CloudState(
        buckets={bucket: {**incoming, **keep}},
        queues=dict.fromkeys(queues, ()),
        logs={group: {}},
    )
    summary = json.dumps({"routed": routed, "quarantined": len(quarantine)})
    expected = CloudState(
        buckets={bucket: {**processed, **quarantine, **keep}},
        queues={name: tuple(bodies) for name, bodies in queues.items()},
        logs={group: {"runs": (summary,)}},
    )
    semicolon = locale.delimiter == ";"
    named = ", ".join(regions)
    return Draft(
        initial=initial,
        expected=expected,
        params={
            "BUCKET": bucket,
            "INCOMING": "incoming/",
            "PROCESSED": "processed/",
            "QUARANTINE": "quarantine/",
            "QUEUE_PREFIX": "invoices-",
            "REGIONS": regions,
            "DELIMITER": locale.delimiter,
            "DECIMAL_COMMA": locale.decimal_comma,
            "LOG_GROUP": group,
            "LOG_STREAM": "runs",
        },
        facts=Facts(
            title=text(
                f"route the new invoice files in s3://{bucket}/incoming/ to the regional queues",
                f"die neuen Rechnungsdateien in s3://{bucket}/incoming/ auf die regionalen "
                "Queues verteilen",
                f"répartir les nouveaux fichiers de factures de s3://{bucket}/incoming/ dans "
                "les files régionales",
            ),
            steps=(
                text(
                    f"Each file under incoming/ is a CSV "
                    f"({'semicolon' if semicolon else 'comma'}-separated, header `{header}`, "
                    f"amounts in {locale.currency} with a decimal "
                    f"{'comma' if locale.decimal_comma else 'point'}).",
                    f"Jede Datei unter incoming/ ist eine CSV-Datei (Trennzeichen "
                    f"{'Semikolon' if semicolon else 'Komma'}, Kopfzeile `{header}`, Beträge in "
                    f"{locale.currency} mit Dezimal{'komma' if locale.decimal_comma else 'punkt'}"
                    ").",
                    f"Chaque fichier sous incoming/ est un CSV (séparateur "
                    f"{'point-virgule' if semicolon else 'virgule'}, en-tête `{header}`, montants "
                    f"en {locale.currency} avec "
                    f"{'une virgule décimale' if locale.decimal_comma else 'un point décimal'}).",
                ),
                text(
                    "Send one message per invoice row to the queue `invoices-<region>`: the JSON "
                    '`{"invoice_id": "...", "amount": <number>}`.',
                    "Für jede Rechnungszeile eine Nachricht an die Queue `invoices-<region>` "
                    'schicken: das JSON `{"invoice_id": "...", "amount": <Zahl>}`.',
                    "Envoyer un message par ligne de facture dans la file `invoices-<region>` : "
                    'le JSON `{"invoice_id": "...", "amount": <nombre>}`.',
                ),
                text(
                    "Then move the file to processed/ (same file name).",
                    "Danach die Datei nach processed/ verschieben (gleicher Dateiname).",
                    "Ensuite déplacer le fichier dans processed/ (même nom de fichier).",
                ),
                text(
                    f"A file with another header, an amount that is not a number or a region "
                    f"other than {named} is malformed: move it to quarantine/ (same name) and "
                    "send nothing for it.",
                    f"Eine Datei mit einer anderen Kopfzeile, einem Betrag, der keine Zahl ist, "
                    f"oder einer anderen Region als {named} ist fehlerhaft: nach quarantine/ "
                    "verschieben (gleicher Name) und nichts für sie senden.",
                    f"Un fichier avec un autre en-tête, un montant qui n'est pas un nombre ou une "
                    f"région autre que {named} est mal formé : le déplacer dans quarantine/ "
                    "(même nom) et ne rien envoyer pour lui.",
                ),
                text(
                    f"If you handled at least one file, put one event on the log stream `runs` "
                    f'of `{group}` (create the stream): `{{"routed": <messages sent>, '
                    '"quarantined": <files quarantined>}`.',
                    f"Wenn mindestens eine Datei verarbeitet wurde, ein Ereignis in den "
                    f"Log-Stream `runs` von `{group}` schreiben (den Stream anlegen): "
                    '`{"routed": <gesendete Nachrichten>, "quarantined": <Dateien in '
                    "Quarantäne>}`.",
                    f"Si au moins un fichier a été traité, écrire un événement dans le flux de "
                    f"logs `runs` de `{group}` (créer le flux) : "
                    '`{"routed": <messages envoyés>, "quarantined": <fichiers en quarantaine>}`.',
                ),
            ),
        ),
        bad={
            "wrong-routing": (
                ('QUEUE_PREFIX + str(invoice["region"])', "QUEUE_PREFIX + REGIONS[0]"),
            ),
            "leaves-files-in-incoming": (("    move(key, PROCESSED)\n", ""),),
            # right the first time; a second run routes the processed files again
            "duplicates-on-rerun": (
                (
                    'for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, '
                    "Prefix=INCOMING):\n    keys += [",
                    "for page in (\n    page\n    for prefix in (INCOMING, PROCESSED)\n"
                    '    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, '
                    "Prefix=prefix)\n):\n    keys += [",
                ),
                (
                    "    move(key, PROCESSED)\n",
                    "    if key.startswith(INCOMING):\n        move(key, PROCESSED)\n",
                ),
            ),
            "skips-summary": (("if keys:", "if not keys:"),),
            "deletes-malformed": (
                (
                    "        move(key, QUARANTINE)\n",
                    "        s3.delete_object(Bucket=BUCKET, Key=key)\n",
                ),
            ),
        },
        locale=locale.name,
        tags=("s3", "sqs", "logs"),
    )


def _day(rng: random.Random, year: int) -> str:
    return f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def log_archive(rng: random.Random, locale: str) -> Draft:
    """Daily log files older than a cutoff moved to an archive bucket, with an index."""
    company = rng.choice(COMPANIES)
    bucket, archive = f"{company}-app-logs", f"{company}-app-logs-archive"
    services = rng.sample(("api", "web", "worker", "billing", "auth"), 2)
    cutoff = f"2024-{rng.randint(3, 10):02d}-{rng.randint(1, 28):02d}"
    files: dict[str, str] = {}
    for service in services:
        days = {_day(rng, 2024) for _ in range(rng.randint(4, 7))} | {cutoff}
        for day in sorted(days):
            files[f"logs/{service}/{day}.log"] = f"{day}T00:00:01Z {service} started\n"
    keep = {"logs/README.md": "One file per service and day.\n"}
    old = {k: v for k, v in files.items() if k.rsplit("/", 1)[-1][:10] < cutoff}
    if not old:
        key = f"logs/{services[0]}/2024-01-02.log"
        files[key] = old[key] = "2024-01-02T00:00:01Z started\n"
    index = f"index/{cutoff}.txt"
    earlier = {f"logs/{services[0]}/2023-12-31.log": "2023-12-31T00:00:01Z started\n"}
    outside = {f"debug/{services[1]}/2024-01-01.log": "2024-01-01T00:00:01Z debug on\n"}
    initial = CloudState(buckets={bucket: {**files, **keep, **outside}, archive: dict(earlier)})

    def archived(moved: dict[str, str]) -> CloudState:
        staying = {k: v for k, v in {**files, **keep, **outside}.items() if k not in moved}
        listing = "".join(f"{k}\n" for k in sorted(moved))
        return CloudState(buckets={bucket: staying, archive: {**earlier, **moved, index: listing}})

    through = {**old, **{k: v for k, v in files.items() if k.endswith(f"/{cutoff}.log")}}
    moving = text(
        f"Move every one dated strictly before {cutoff} to the bucket `{archive}` under the same "
        "key (copy, then delete the original). Files of that day or later stay.",
        f"Jede mit einem Datum strikt vor dem {cutoff} in den Bucket `{archive}` unter demselben "
        "Schlüssel verschieben (kopieren, dann das Original löschen). Dateien von diesem Tag "
        "oder später bleiben.",
        f"Déplacer chacun daté strictement avant le {cutoff} dans le bucket `{archive}` sous la "
        "même clé (copier, puis supprimer l'original). Les fichiers de ce jour ou plus récents "
        "restent.",
    )
    vaguely = text(
        f"Move the ones up to {cutoff} to the bucket `{archive}` under the same key (copy, then "
        "delete the original); the newer ones stay.",
        f"Die bis zum {cutoff} in den Bucket `{archive}` unter demselben Schlüssel verschieben "
        "(kopieren, dann das Original löschen); die neueren bleiben.",
        f"Déplacer ceux jusqu'au {cutoff} dans le bucket `{archive}` sous la même clé (copier, "
        "puis supprimer l'original) ; les plus récents restent.",
    )
    title = text(
        f"archive the old log files of s3://{bucket} (cutoff {cutoff})",
        f"die alten Logdateien von s3://{bucket} archivieren (Stichtag {cutoff})",
        f"archiver les anciens fichiers de logs de s3://{bucket} (date limite {cutoff})",
    )
    where = text(
        f"Log files are `logs/<service>/<YYYY-MM-DD>.log` in `{bucket}`; nothing outside logs/ "
        "is touched.",
        f"Logdateien liegen als `logs/<service>/<YYYY-MM-DD>.log` in `{bucket}`; außerhalb von "
        "logs/ wird nichts angefasst.",
        f"Les fichiers de logs sont `logs/<service>/<YYYY-MM-DD>.log` dans `{bucket}` ; rien en "
        "dehors de logs/ n'est touché.",
    )
    listing = text(
        f"If you moved any, write `{index}` in `{archive}`: the moved keys, sorted, one per "
        "line, each line ending with a newline.",
        f"Wenn etwas verschoben wurde, `{index}` in `{archive}` schreiben: die verschobenen "
        "Schlüssel, sortiert, einer pro Zeile, jede Zeile mit einem Zeilenumbruch am Ende.",
        f"Si des fichiers ont été déplacés, écrire `{index}` dans `{archive}` : les clés "
        "déplacées, triées, une par ligne, chaque ligne terminée par un saut de ligne.",
    )
    return Draft(
        initial=initial,
        expected=archived(old),
        params={
            "BUCKET": bucket,
            "ARCHIVE": archive,
            "PREFIX": "logs/",
            "CUTOFF": cutoff,
            "INDEX": index,
        },
        facts=Facts(title=title, steps=(where, moving, listing)),
        vague=Facts(title=title, steps=(where, vaguely, listing)),
        readings=(
            Reading(
                "through-cutoff",
                archived(through),
                (("day < CUTOFF", "day <= CUTOFF"),),
                allows=("off-by-one-day",),
            ),
        ),
        bad={
            "off-by-one-day": (("day < CUTOFF", "day <= CUTOFF"),),
            "copy-without-delete": (
                ("            s3.delete_object(Bucket=BUCKET, Key=key)\n", ""),
            ),
            "delete-without-copy": (
                (
                    "            s3.copy_object(Bucket=ARCHIVE, Key=key, CopySource="
                    '{"Bucket": BUCKET, "Key": key})\n',
                    "",
                ),
            ),
            "index-overwritten-on-rerun": (("if moved:", "if True:"),),
        },
        locale=locale,
        tags=("s3",),
    )


def upload_cleanup(rng: random.Random, locale: str) -> Draft:
    """Abandoned partial uploads (.tmp, .part, empty) deleted under one prefix; a count logged."""
    company = rng.choice(COMPANIES)
    bucket, group = f"{company}-user-uploads", f"/ops/{company}/cleanup"
    objects: dict[str, str] = {}
    doomed = set()
    for number in range(rng.randint(6, 10)):
        user = f"user-{rng.randint(100, 999)}"
        kind = rng.choice(("photo.jpg", "doc.pdf", "doc.pdf.part", "upload.tmp", "empty.txt"))
        key = f"uploads/{user}/{number:02d}-{kind}"
        objects[key] = "" if kind == "empty.txt" else f"data {number}\n"
        if kind in ("doc.pdf.part", "upload.tmp", "empty.txt"):
            doomed.add(key)
    if not any(key.endswith("empty.txt") for key in doomed):
        objects["uploads/user-1/99-empty.txt"] = ""
        doomed.add("uploads/user-1/99-empty.txt")
    for suffix in (".tmp", ".part"):
        if not any(key.endswith(suffix) for key in doomed):
            key = f"uploads/user-1/00-stale{suffix}"
            objects[key] = "x"
            doomed.add(key)
    outside = {"config/settings.tmp": "keep=1\n", "archive/2023/old.part": "old\n"}
    initial = CloudState(buckets={bucket: {**objects, **outside}}, logs={group: {}})

    def cleaned(deleted: set[str]) -> CloudState:
        staying = {k: v for k, v in objects.items() if k not in deleted}
        return CloudState(
            buckets={bucket: {**staying, **outside}},
            logs={group: {"uploads": (json.dumps({"deleted": len(deleted)}),)}},
        )

    partial = {key for key in doomed if key.endswith((".tmp", ".part"))}
    title = text(
        f"clean up the abandoned uploads in s3://{bucket}/uploads/",
        f"die abgebrochenen Uploads in s3://{bucket}/uploads/ aufräumen",
        f"nettoyer les envois abandonnés dans s3://{bucket}/uploads/",
    )
    logged = text(
        f"If you deleted any, put one event on the stream `uploads` of `{group}` (create the "
        'stream): `{"deleted": <how many>}`.',
        f"Wenn etwas gelöscht wurde, ein Ereignis in den Stream `uploads` von `{group}` "
        'schreiben (den Stream anlegen): `{"deleted": <Anzahl>}`.',
        f"Si des objets ont été supprimés, écrire un événement dans le flux `uploads` de "
        f'`{group}` (créer le flux) : `{{"deleted": <combien>}}`.',
    )
    precise = text(
        "Under uploads/ only, delete every object whose key ends in `.tmp` or `.part`, and "
        "every empty (zero-byte) object. Nothing outside uploads/ is touched.",
        "Nur unter uploads/ jedes Objekt löschen, dessen Schlüssel auf `.tmp` oder `.part` "
        "endet, und jedes leere Objekt (null Bytes). Außerhalb von uploads/ wird nichts "
        "angefasst.",
        "Sous uploads/ uniquement, supprimer chaque objet dont la clé se termine par `.tmp` ou "
        "`.part`, ainsi que chaque objet vide (zéro octet). Rien en dehors de uploads/ n'est "
        "touché.",
    )
    vaguely = text(
        "Under uploads/ only, get rid of the junk that interrupted transfers leave behind (the "
        "`.tmp` and `.part` leftovers). Nothing outside uploads/ is touched.",
        "Nur unter uploads/ den Müll wegräumen, den abgebrochene Übertragungen hinterlassen "
        "(die `.tmp`- und `.part`-Reste). Außerhalb von uploads/ wird nichts angefasst.",
        "Sous uploads/ uniquement, se débarrasser de ce que laissent les transferts "
        "interrompus (les restes `.tmp` et `.part`). Rien en dehors de uploads/ n'est touché.",
    )
    return Draft(
        initial=initial,
        expected=cleaned(doomed),
        params={
            "BUCKET": bucket,
            "PREFIX": "uploads/",
            "SUFFIXES": [".tmp", ".part"],
            "LOG_GROUP": group,
            "LOG_STREAM": "uploads",
        },
        facts=Facts(title=title, steps=(precise, logged)),
        vague=Facts(title=title, steps=(vaguely, logged)),
        readings=(
            Reading(
                "suffixes-only",
                cleaned(partial),
                (("""or entry["Size"] == 0""", "or False"),),
                allows=("keeps-empty-objects",),
            ),
        ),
        bad={
            "whole-bucket": (("Prefix=PREFIX", "Prefix=''"),),
            "keeps-empty-objects": (("""or entry["Size"] == 0""", "or False"),),
            "logs-on-every-run": (("if deleted:", "if True:"),),
        },
        locale=locale,
        tags=("s3", "logs"),
    )


def prefix_migration(rng: random.Random, locale: str) -> Draft:
    """Customer profiles moved from ``v1/customers/<id>.json`` to
    ``v2/customers/<id>/profile.json``."""
    company = rng.choice(COMPANIES)
    bucket = f"{company}-profiles"
    old: dict[str, str] = {}
    new: dict[str, str] = {}
    for _ in range(rng.randint(4, 8)):
        customer = f"c{rng.randint(10000, 99999)}"
        body = json.dumps({"id": customer, "tier": rng.choice(("free", "pro", "team"))})
        old[f"v1/customers/{customer}.json"] = body
        new[f"v2/customers/{customer}/profile.json"] = body
    keep = {
        "v1/customers/README.txt": "Profiles, one JSON file per customer.\n",
        "v1/orders/o-1.json": json.dumps({"id": "o-1"}),
    }
    title = text(
        f"migrate the customer profiles of s3://{bucket} to the v2 layout",
        f"die Kundenprofile in s3://{bucket} auf das v2-Layout umziehen",
        f"migrer les profils clients de s3://{bucket} vers la disposition v2",
    )
    others = text(
        "Other files (not ending in .json, or outside v1/customers/) stay where they are.",
        "Andere Dateien (nicht auf .json endend oder außerhalb von v1/customers/) bleiben, wo "
        "sie sind.",
        "Les autres fichiers (ne se terminant pas par .json, ou hors de v1/customers/) restent "
        "où ils sont.",
    )
    moved = text(
        "Each `v1/customers/<id>.json` moves to `v2/customers/<id>/profile.json` with the same "
        "contents; the v1 copy is deleted once the v2 one is written.",
        "Jede `v1/customers/<id>.json` wandert mit gleichem Inhalt nach "
        "`v2/customers/<id>/profile.json`; die v1-Kopie wird gelöscht, sobald die v2-Kopie "
        "geschrieben ist.",
        "Chaque `v1/customers/<id>.json` passe dans `v2/customers/<id>/profile.json` avec le "
        "même contenu ; la copie v1 est supprimée une fois la v2 écrite.",
    )
    vaguely = text(
        "Each `v1/customers/<id>.json` needs to be available as "
        "`v2/customers/<id>/profile.json`, same contents.",
        "Jede `v1/customers/<id>.json` muss mit gleichem Inhalt als "
        "`v2/customers/<id>/profile.json` verfügbar sein.",
        "Chaque `v1/customers/<id>.json` doit être disponible en "
        "`v2/customers/<id>/profile.json`, avec le même contenu.",
    )
    return Draft(
        initial=CloudState(buckets={bucket: {**old, **keep}}),
        expected=CloudState(buckets={bucket: {**new, **keep}}),
        params={
            "BUCKET": bucket,
            "OLD": "v1/customers/",
            "NEW": "v2/customers/",
            "NAME": "profile.json",
        },
        facts=Facts(title=title, steps=(moved, others)),
        vague=Facts(title=title, steps=(vaguely, others)),
        readings=(
            Reading(
                "keeps-v1",
                CloudState(buckets={bucket: {**old, **new, **keep}}),
                (("        s3.delete_object(Bucket=BUCKET, Key=key)\n", ""),),
                allows=("copy-only",),
            ),
        ),
        bad={
            "copy-only": (("        s3.delete_object(Bucket=BUCKET, Key=key)\n", ""),),
            "wrong-layout": (
                ('target = f"{NEW}{customer}/{NAME}"', 'target = f"{NEW}{customer}.json"'),
            ),
            "moves-everything": (
                ('        if not key.endswith(".json"):\n            continue\n', ""),
            ),
        },
        locale=locale,
        tags=("s3",),
    )


def pii_scan(rng: random.Random, locale: str) -> Draft:
    """Exports holding identity numbers quarantined, one alert each."""
    company = rng.choice(COMPANIES)
    bucket = f"{company}-support-exports"
    objects: dict[str, str] = {}
    flagged: list[str] = []
    for number in range(rng.randint(5, 8)):
        key = f"exports/ticket-{rng.randint(1000, 9999)}-{number}.txt"
        if rng.random() < 0.4:
            ssn = f"{rng.randint(100, 899)}-{rng.randint(10, 99)}-{rng.randint(1000, 9999)}"
            objects[key] = f"Customer wrote: my number is {ssn}, please help.\n"
            flagged.append(key)
        else:
            phone = f"555-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}"
            objects[key] = f"Customer asked for a call back at {phone}.\n"
    if not flagged:
        key = "exports/ticket-0001-x.txt"
        objects[key] = "SSN 123-45-6789 on file.\n"
        flagged.append(key)
    keep = {"templates/reply.txt": "Example: 123-45-6789 is not a real number.\n"}
    quarantined = {"quarantine/" + k[len("exports/") :]: objects[k] for k in flagged}
    alerts = tuple(
        json.dumps({"key": k, "moved_to": "quarantine/" + k[len("exports/") :]}) for k in flagged
    )
    earlier = (json.dumps({"key": "exports/old.txt", "moved_to": "quarantine/old.txt"}),)
    initial = CloudState(buckets={bucket: {**objects, **keep}}, queues={"security-alerts": earlier})
    expected = CloudState(
        buckets={
            bucket: {
                **{k: v for k, v in objects.items() if k not in flagged},
                **quarantined,
                **keep,
            }
        },
        queues={"security-alerts": earlier + alerts},
    )
    return Draft(
        initial=initial,
        expected=expected,
        params={
            "BUCKET": bucket,
            "PREFIX": "exports/",
            "QUARANTINE": "quarantine/",
            "QUEUE": "security-alerts",
            "PATTERN": r"\b\d{3}-\d{2}-\d{4}\b",
        },
        facts=Facts(
            title=text(
                f"quarantine the support exports in s3://{bucket}/exports/ that hold SSNs",
                f"die Support-Exporte in s3://{bucket}/exports/ mit Sozialversicherungsnummern "
                "(SSN) in Quarantäne verschieben",
                f"mettre en quarantaine les exports du support dans s3://{bucket}/exports/ qui "
                "contiennent des numéros de sécurité sociale (SSN)",
            ),
            steps=(
                text(
                    "An export holds an SSN when it contains three digits, a dash, two digits, "
                    "a dash and four digits as a separate word (like 123-45-6789).",
                    "Ein Export enthält eine SSN, wenn darin drei Ziffern, ein Bindestrich, zwei "
                    "Ziffern, ein Bindestrich und vier Ziffern als eigenes Wort stehen (etwa "
                    "123-45-6789).",
                    "Un export contient un SSN quand on y trouve trois chiffres, un tiret, deux "
                    "chiffres, un tiret et quatre chiffres formant un mot à part (comme "
                    "123-45-6789).",
                ),
                text(
                    "Move each such file from exports/ to quarantine/ (same file name) and send "
                    'one message to `security-alerts`: `{"key": "<old key>", "moved_to": "<new '
                    'key>"}`.',
                    "Jede solche Datei von exports/ nach quarantine/ verschieben (gleicher "
                    "Dateiname) und eine Nachricht an `security-alerts` senden: "
                    '`{"key": "<alter Schlüssel>", "moved_to": "<neuer Schlüssel>"}`.',
                    "Déplacer chacun de ces fichiers de exports/ vers quarantine/ (même nom) et "
                    "envoyer un message à `security-alerts` : "
                    '`{"key": "<ancienne clé>", "moved_to": "<nouvelle clé>"}`.',
                ),
                text(
                    "Files outside exports/ are not scanned.",
                    "Dateien außerhalb von exports/ werden nicht durchsucht.",
                    "Les fichiers hors de exports/ ne sont pas analysés.",
                ),
            ),
        ),
        bad={
            "alerts-without-moving": (
                (
                    "            s3.copy_object(Bucket=BUCKET, Key=target, CopySource="
                    '{"Bucket": BUCKET, "Key": key})\n'
                    "            s3.delete_object(Bucket=BUCKET, Key=key)\n",
                    "",
                ),
            ),
            "scans-everything": (("Prefix=PREFIX)", "Prefix='')"),),
            "loose-pattern": (("PATTERN, text", "'[0-9]-[0-9]', text"),),
        },
        locale=locale,
        tags=("s3", "sqs"),
    )


TEMPLATES = (
    Template("invoice-routing", ("s3", "sqs", "logs"), "medium", invoice_routing),
    Template("log-archive", ("s3",), "easy", log_archive),
    Template("upload-cleanup", ("s3", "logs"), "easy", upload_cleanup),
    Template("prefix-migration", ("s3",), "easy", prefix_migration),
    Template("pii-scan", ("s3", "sqs"), "medium", pii_scan),
)
