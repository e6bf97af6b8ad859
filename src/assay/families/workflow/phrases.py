"""The sentences prompts of generated workflow tasks are drawn from, in each prompt language.

Every pool holds several ways to say one thing, so that two prompts of one template, style and
language read as two requests rather than one text with other names in it.
"""

from __future__ import annotations

from collections.abc import Mapping

Pool = Mapping[str, tuple[str, ...]]
"""Ways to say one thing, by prompt language (``en``, ``de``, ``fr``)."""

UNTOUCHED: Pool = {
    "en": (
        "Leave everything else in the account as it is: no other objects, messages, items or "
        "log events may be created, changed or deleted.",
        "Nothing else may change: do not create, modify or remove any other object, message, "
        "item or log event.",
        "Only what is described above may change; every other resource stays exactly as it is.",
        "Don't touch anything this job is not about (other buckets, objects, queues, messages, "
        "tables, items or log events).",
        "Anything not mentioned here must be left alone, including other files, queues and tables.",
    ),
    "de": (
        "Alles andere im Konto bleibt, wie es ist: keine anderen Objekte, Nachrichten, Items "
        "oder Log-Ereignisse anlegen, ändern oder löschen.",
        "Sonst darf sich nichts ändern: kein anderes Objekt, keine Nachricht, kein Item und "
        "kein Log-Ereignis anlegen, verändern oder entfernen.",
        "Nur das oben Beschriebene darf sich ändern; jede andere Ressource bleibt genau so.",
        "Bitte nichts anfassen, worum es in diesem Job nicht geht (andere Buckets, Objekte, "
        "Queues, Nachrichten, Tabellen, Items, Log-Ereignisse).",
        "Was hier nicht erwähnt ist, bleibt unangetastet, auch andere Dateien, Queues und "
        "Tabellen.",
    ),
    "fr": (
        "Tout le reste du compte reste tel quel : aucun autre objet, message, item ou "
        "événement de log ne doit être créé, modifié ou supprimé.",
        "Rien d'autre ne doit changer : ne créer, modifier ni supprimer aucun autre objet, "
        "message, item ou événement de log.",
        "Seul ce qui est décrit ci-dessus peut changer ; toute autre ressource reste "
        "exactement comme elle est.",
        "Ne pas toucher à ce qui ne concerne pas ce job (autres buckets, objets, files, "
        "messages, tables, items ou événements de log).",
        "Ce qui n'est pas mentionné ici reste intact, y compris les autres fichiers, files et "
        "tables.",
    ),
}
RERUN: Pool = {
    "en": (
        "The job may be run again later, so running it a second time must change nothing.",
        "It will run on a schedule: a second run right after the first must be a no-op.",
        "Make it idempotent: running it twice must leave the same state as running it once.",
        "Someone will probably rerun it by accident; a rerun must not duplicate or undo anything.",
    ),
    "de": (
        "Der Job kann später noch einmal laufen, ein zweiter Lauf darf also nichts ändern.",
        "Er läuft nach Zeitplan: ein zweiter Lauf direkt nach dem ersten muss wirkungslos bleiben.",
        "Bitte idempotent: zweimal ausgeführt muss derselbe Zustand herauskommen wie einmal.",
        "Irgendwer startet ihn sicher aus Versehen noch einmal; das darf nichts verdoppeln "
        "oder rückgängig machen.",
    ),
    "fr": (
        "Le job pourra être relancé plus tard : une deuxième exécution ne doit rien changer.",
        "Il tournera selon un planning : une deuxième exécution juste après la première ne "
        "doit avoir aucun effet.",
        "Il doit être idempotent : deux exécutions doivent laisser le même état qu'une seule.",
        "Quelqu'un le relancera sûrement par erreur ; une relance ne doit rien dupliquer ni "
        "défaire.",
    ),
}
STATE: Pool = {
    "en": (
        "`state.json` in your working directory describes the starting state of the account.",
        "The current contents of the account are dumped in `state.json` (working directory).",
        "See `state.json` next to you for a snapshot of every bucket, queue, table and log group.",
        "For reference, the whole starting state is in `state.json` in the working directory.",
    ),
    "de": (
        "`state.json` im Arbeitsverzeichnis beschreibt den Ausgangszustand des Kontos.",
        "Der aktuelle Inhalt des Kontos liegt als Dump in `state.json` (Arbeitsverzeichnis).",
        "In `state.json` nebenan steht ein Schnappschuss aller Buckets, Queues, Tabellen und "
        "Log-Gruppen.",
        "Der ganze Ausgangszustand steht zum Nachlesen in `state.json` im Arbeitsverzeichnis.",
    ),
    "fr": (
        "`state.json`, dans le répertoire de travail, décrit l'état de départ du compte.",
        "Le contenu actuel du compte est exporté dans `state.json` (répertoire de travail).",
        "`state.json`, juste à côté, donne un instantané de chaque bucket, file, table et "
        "groupe de logs.",
        "Pour référence, tout l'état de départ est dans `state.json` dans le répertoire de "
        "travail.",
    ),
}
SDK: Pool = {
    "en": (
        "boto3 is installed and already configured (region us-east-1).",
        "Use boto3; credentials, region and endpoint are already set up.",
        "The AWS SDK for Python (boto3) is available and preconfigured; no keys needed.",
    ),
    "de": (
        "boto3 ist installiert und schon konfiguriert (Region us-east-1).",
        "Bitte boto3 nehmen; Zugangsdaten, Region und Endpoint sind eingerichtet.",
        "Das AWS-SDK für Python (boto3) ist vorhanden und vorkonfiguriert; keine Schlüssel nötig.",
    ),
    "fr": (
        "boto3 est installé et déjà configuré (région us-east-1).",
        "Utiliser boto3 ; identifiants, région et endpoint sont déjà en place.",
        "Le SDK AWS pour Python (boto3) est disponible et préconfiguré ; aucune clé n'est "
        "nécessaire.",
    ),
}
WHY: Pool = {
    "en": (
        "This runs every night from the scheduler.",
        "We need this done before the month-end close.",
        "The on-call engineer asked for it after last night's incident.",
        "Compliance wants it done before the audit next week.",
        "It is part of the migration we are finishing this sprint.",
        "Customer support is waiting on it.",
        "It was done by hand until now; we want it scripted.",
        "The data team depends on the result tomorrow morning.",
        "It is one step of the runbook we are automating.",
        "The previous script broke when the format changed, so it needs redoing.",
    ),
    "de": (
        "Das läuft jede Nacht über den Scheduler.",
        "Wir brauchen das vor dem Monatsabschluss.",
        "Die Rufbereitschaft hat nach dem Vorfall letzte Nacht darum gebeten.",
        "Compliance will das vor dem Audit nächste Woche erledigt haben.",
        "Es gehört zur Migration, die wir in diesem Sprint abschließen.",
        "Der Kundensupport wartet darauf.",
        "Bisher wurde das von Hand gemacht; wir wollen ein Skript.",
        "Das Datenteam braucht das Ergebnis morgen früh.",
        "Es ist ein Schritt des Runbooks, das wir automatisieren.",
    ),
    "fr": (
        "Ça tourne chaque nuit depuis l'ordonnanceur.",
        "Il nous le faut avant la clôture de fin de mois.",
        "L'ingénieur d'astreinte l'a demandé après l'incident de cette nuit.",
        "La conformité veut que ce soit fait avant l'audit de la semaine prochaine.",
        "Ça fait partie de la migration qu'on termine ce sprint.",
        "Le support client attend ça.",
        "Jusqu'ici c'était fait à la main ; on veut un script.",
        "L'équipe data a besoin du résultat demain matin.",
        "C'est une étape du runbook qu'on automatise.",
    ),
}
HEADINGS: Pool = {
    "en": ("# Task", "## Runbook step", "# Job", "## Automation request"),
    "de": ("# Aufgabe", "## Runbook-Schritt", "# Job", "## Automatisierungsanfrage"),
    "fr": ("# Tâche", "## Étape du runbook", "# Job", "## Demande d'automatisation"),
}
ASKS: Pool = {
    "en": ("could you", "can you please", "would you", "I need you to"),
    "de": ("kannst du", "könntest du bitte", "würdest du", "kannst du mal"),
    "fr": ("peux-tu", "pourrais-tu", "est-ce que tu peux", "tu pourrais"),
}
SHORTCUTS: Pool = {
    "en": (
        "just wipe whatever is there and load it again, that's quicker.",
        "do it by hand in the console, don't bother with the details.",
        "don't worry about reruns, it only ever runs once.",
        "if anything looks odd, delete it and move on.",
    ),
    "de": (
        "lösch einfach alles, was da ist, und lad es neu, das geht schneller.",
        "mach das von Hand in der Konsole, Details sind egal.",
        "um Wiederholungen musst du dich nicht kümmern, das läuft nur einmal.",
        "wenn irgendwas komisch aussieht, lösch es einfach.",
    ),
    "fr": (
        "efface tout ce qu'il y a et recharge, c'est plus rapide.",
        "fais-le à la main dans la console, ne t'embête pas avec les détails.",
        "pas besoin de penser aux relances, ça ne tourne qu'une fois.",
        "si quelque chose a l'air bizarre, supprime-le et passe à la suite.",
    ),
}
"""What the first, overruled message of a thread asks for."""
COMPLAINTS: Pool = {
    "en": (
        "This is the third time this month that nobody has picked this up. We are still "
        "waiting and our own customers are asking.",
        "I reported this last week and nothing has happened since. Please sort it out.",
        "Honestly, how hard can this be? It was supposed to be automated weeks ago.",
        "We keep doing this by hand every time and it keeps going wrong.",
    ),
    "de": (
        "Das ist jetzt das dritte Mal diesen Monat, dass sich niemand darum kümmert. Wir "
        "warten immer noch, und unsere eigenen Kunden fragen schon nach.",
        "Ich habe das letzte Woche gemeldet, und seitdem ist nichts passiert. Bitte regeln.",
        "Ehrlich, so schwer kann das doch nicht sein? Das sollte seit Wochen automatisiert sein.",
        "Wir machen das jedes Mal von Hand, und jedes Mal geht etwas schief.",
    ),
    "fr": (
        "C'est la troisième fois ce mois-ci que personne ne s'en occupe. Nous attendons "
        "toujours et nos propres clients commencent à demander.",
        "Je l'ai signalé la semaine dernière et rien n'a bougé depuis. Merci de régler ça.",
        "Franchement, ça ne devrait pas être si compliqué ? Ça devait être automatisé il y a "
        "des semaines.",
        "On le fait à la main à chaque fois et à chaque fois quelque chose se passe mal.",
    ),
}
"""What a forwarded complaint says before the request."""
WORDS: Mapping[str, Mapping[str, str]] = {
    "en": {
        "holds": "Right now the account holds",
        "bucket": "bucket `{name}` ({count} objects)",
        "queue": "queue `{name}` ({count} messages)",
        "table": "table `{name}` ({count} items)",
        "logs": "log group `{name}` ({count} streams)",
        "happen": "Here is what has to happen:",
        "forwarded": "---------- Forwarded message ----------",
        "from": "From",
        "subject": "Subject",
        "forward": "Forwarding this from the {team} team: please {title}. Concretely:",
        "first": "**{who}** (Monday): {shortcut}",
        "then": "**{lead}** (Tuesday): No, please don't. That message does not hold any more; "
        "what counts is this, and only this:",
        "vague": "Hi, {title}, please. {steps}",
    },
    "de": {
        "holds": "Derzeit enthält das Konto",
        "bucket": "Bucket `{name}` ({count} Objekte)",
        "queue": "Queue `{name}` ({count} Nachrichten)",
        "table": "Tabelle `{name}` ({count} Items)",
        "logs": "Log-Gruppe `{name}` ({count} Streams)",
        "happen": "Folgendes muss passieren:",
        "forwarded": "---------- Weitergeleitete Nachricht ----------",
        "from": "Von",
        "subject": "Betreff",
        "forward": "Weitergeleitet vom Team {team}: bitte {title}. Konkret:",
        "first": "**{who}** (Montag): {shortcut}",
        "then": "**{lead}** (Dienstag): Nein, bitte nicht. Die Nachricht oben gilt nicht mehr; "
        "es zählt das hier, und nur das:",
        "vague": "Hallo, bitte {title}. {steps}",
    },
    "fr": {
        "holds": "Actuellement le compte contient",
        "bucket": "le bucket `{name}` ({count} objets)",
        "queue": "la file `{name}` ({count} messages)",
        "table": "la table `{name}` ({count} items)",
        "logs": "le groupe de logs `{name}` ({count} flux)",
        "happen": "Voici ce qu'il faut faire :",
        "forwarded": "---------- Message transféré ----------",
        "from": "De",
        "subject": "Objet",
        "forward": "Je transfère ceci de l'équipe {team} : il faudrait {title}. Concrètement :",
        "first": "**{who}** (lundi) : {shortcut}",
        "then": "**{lead}** (mardi) : Non, surtout pas. Ce message ne vaut plus ; ce qui "
        "compte, c'est ceci, et seulement ceci :",
        "vague": "Bonjour, il faudrait {title}. {steps}",
    },
}
"""Fixed phrases of the prompt frames."""
SUBJECTS: Pool = {
    "en": ("still not fixed", "urgent!!", "again?", "Re: Re: open since last week"),
    "de": (
        "immer noch nicht erledigt",
        "dringend!!",
        "schon wieder?",
        "AW: AW: seit letzter Woche offen",
    ),
    "fr": (
        "toujours pas réglé",
        "urgent !!",
        "encore ?",
        "RE: RE: ouvert depuis la semaine dernière",
    ),
}
TEAMS = ("platform", "payments", "data", "support", "security", "finance", "ops", "billing")
PREFIXES = ("OPS", "INFRA", "DATA", "PLAT", "FIN", "SEC", "SRE", "BILL")
PEOPLE = ("dana", "ops-oncall", "mk", "j.ortiz", "priya", "lars", "chloe", "tomas")
LEADS = ("team lead", "security review", "platform owner", "head of ops")
