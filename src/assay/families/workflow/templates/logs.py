"""Templates over log groups: paginated heartbeats, error extraction."""

from __future__ import annotations

import json
import random

from assay.families.workflow.state import CloudState, TableState
from assay.families.workflow.templates._base import COMPANIES, Draft, Facts, Template, text


def worker_heartbeats(rng: random.Random, locale: str) -> Draft:
    """The last status of every worker's stream (more than one page of streams) in a table."""
    group = "/fleet/workers"
    streams: dict[str, tuple[str, ...]] = {}
    items = []
    for n in range(rng.randint(55, 68)):
        name = f"worker-{n:03d}"
        statuses = [
            rng.choice(("ok", "ok", "degraded", "draining")) for _ in range(rng.randint(1, 3))
        ]
        streams[name] = tuple(f"heartbeat seq={i} status={s}" for i, s in enumerate(statuses))
        items.append({"worker": name, "last_status": statuses[-1]})
    streams["worker-idle"] = ()
    old = {"worker": "worker-retired", "last_status": "gone"}
    return Draft(
        initial=CloudState(
            logs={group: streams},
            tables={"worker-status": TableState(hash_key="worker", items=(old,))},
        ),
        expected=CloudState(
            logs={group: streams},
            tables={"worker-status": TableState(hash_key="worker", items=(old, *items))},
        ),
        params={"LOG_GROUP": group, "TABLE": "worker-status"},
        facts=Facts(
            title=text(
                f"record every worker's last status from the streams of `{group}`",
                f"den letzten Status jedes Workers aus den Streams von `{group}` festhalten",
                f"enregistrer le dernier statut de chaque worker à partir des flux de `{group}`",
            ),
            steps=(
                text(
                    f"Each stream of `{group}` is one worker; its events end with "
                    "`status=<value>`.",
                    f"Jeder Stream von `{group}` ist ein Worker; seine Ereignisse enden mit "
                    "`status=<Wert>`.",
                    f"Chaque flux de `{group}` est un worker ; ses événements se terminent par "
                    "`status=<valeur>`.",
                ),
                text(
                    "For every stream with at least one event, put the item "
                    '`{"worker": "<stream name>", "last_status": "<status of its last event>"}` '
                    "in `worker-status`. Streams without events are skipped; other items stay.",
                    "Für jeden Stream mit mindestens einem Ereignis das Item "
                    '`{"worker": "<Name des Streams>", "last_status": "<Status seines letzten '
                    'Ereignisses>"}` in `worker-status` schreiben. Streams ohne Ereignisse werden '
                    "übersprungen; andere Items bleiben.",
                    "Pour chaque flux ayant au moins un événement, écrire l'item "
                    '`{"worker": "<nom du flux>", "last_status": "<statut de son dernier '
                    'événement>"}` dans `worker-status`. Les flux sans événement sont ignorés ; '
                    "les autres items restent.",
                ),
                text(
                    "There are more streams than one listing call returns.",
                    "Es gibt mehr Streams, als ein einzelner Listing-Aufruf liefert.",
                    "Il y a plus de flux qu'un seul appel de listage n'en renvoie.",
                ),
            ),
        ),
        bad={
            "first-page-only": (
                (
                    'for page in logs.get_paginator("describe_log_streams").paginate('
                    "logGroupName=LOG_GROUP)\n",
                    "for page in [logs.describe_log_streams(logGroupName=LOG_GROUP)]\n",
                ),
            ),
            "first-event": (("messages[-1].rsplit", "messages[0].rsplit"),),
        },
        locale=locale,
        tags=("logs", "dynamodb"),
    )


def error_extraction(rng: random.Random, locale: str) -> Draft:
    """ERROR events of an API's log streams sent to an incidents queue, once, with a summary."""
    company = rng.choice(COMPANIES)
    bucket, group = f"{company}-ops-reports", "/app/api"
    streams: dict[str, tuple[str, ...]] = {}
    incidents = []
    for n in range(rng.randint(2, 4)):
        name = f"api-{n}"
        events = []
        for i in range(rng.randint(2, 5)):
            level = "WARN" if n == i == 0 else rng.choice(("INFO", "INFO", "WARN", "ERROR"))
            outcome = rng.choice(("timed out", "ok", "slow", "failed"))
            said = f"request {rng.randint(1000, 9999)} {outcome}"
            events.append(f"{level} {said}")
            if level == "ERROR":
                incidents.append(json.dumps({"stream": name, "message": said}))
        streams[name] = tuple(events)
    if not incidents:
        streams["api-x"] = ("ERROR database unreachable",)
        incidents.append(json.dumps({"stream": "api-x", "message": "database unreachable"}))
    summary = "incidents/summary.json"
    return Draft(
        initial=CloudState(buckets={bucket: {}}, queues={"incidents": ()}, logs={group: streams}),
        expected=CloudState(
            buckets={bucket: {summary: json.dumps({"errors": len(incidents)})}},
            queues={"incidents": tuple(incidents)},
            logs={group: streams},
        ),
        params={"LOG_GROUP": group, "QUEUE": "incidents", "BUCKET": bucket, "SUMMARY": summary},
        facts=Facts(
            title=text(
                f"turn the ERROR events of `{group}` into incidents",
                f"aus den ERROR-Ereignissen von `{group}` Incidents machen",
                f"transformer les événements ERROR de `{group}` en incidents",
            ),
            steps=(
                text(
                    f"Events of the streams of `{group}` start with their level (INFO, WARN, "
                    "ERROR) and a space.",
                    f"Ereignisse der Streams von `{group}` beginnen mit ihrem Level (INFO, WARN, "
                    "ERROR) und einem Leerzeichen.",
                    f"Les événements des flux de `{group}` commencent par leur niveau (INFO, "
                    "WARN, ERROR) et une espace.",
                ),
                text(
                    'For every ERROR event, send `{"stream": "<stream>", "message": "<the text '
                    'after `ERROR `>"}` to `incidents`.',
                    'Für jedes ERROR-Ereignis `{"stream": "<Stream>", "message": "<der Text nach '
                    '`ERROR `>"}` an `incidents` senden.',
                    'Pour chaque événement ERROR, envoyer `{"stream": "<flux>", "message": "<le '
                    'texte après `ERROR `>"}` à `incidents`.',
                ),
                text(
                    f'Then write `s3://{bucket}/{summary}`: `{{"errors": <how many>}}`. If that '
                    "object exists already, the job has run: do nothing at all.",
                    f'Dann `s3://{bucket}/{summary}` schreiben: `{{"errors": <Anzahl>}}`. Wenn '
                    "dieses Objekt schon existiert, ist der Job gelaufen: gar nichts tun.",
                    f'Puis écrire `s3://{bucket}/{summary}` : `{{"errors": <combien>}}`. Si cet '
                    "objet existe déjà, le job a tourné : ne rien faire du tout.",
                ),
            ),
        ),
        bad={
            "no-guard": (('if not any(entry["Key"] == SUMMARY for entry in done):', "if True:"),),
            "includes-warnings": (
                (
                    'event["message"].startswith("ERROR ")',
                    'event["message"][:5] in ("ERROR", "WARN ")',
                ),
            ),
            "no-summary": (
                (
                    "    s3.put_object(Bucket=BUCKET, Key=SUMMARY, "
                    'Body=json.dumps({"errors": errors}))\n',
                    "",
                ),
            ),
        },
        locale=locale,
        tags=("logs", "sqs", "s3"),
    )


TEMPLATES = (
    Template("worker-heartbeats", ("logs", "dynamodb"), "medium", worker_heartbeats),
    Template("error-extraction", ("logs", "sqs", "s3"), "medium", error_extraction),
)
