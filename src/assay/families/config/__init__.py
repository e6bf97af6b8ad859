"""The ``config`` family: Kubernetes configuration judged by what it means.

Task layout: ``task.toml`` with a ``[config]`` table (``kubernetes``, the pinned version whose
schemas objects are validated against; ``cluster``, the cluster description in ``workspace/``;
``kinds``, what a submission may hold) (:mod:`.spec`); ``workspace/cluster.yaml`` with the
cluster's Namespace, Pod (labels, named container ports, ``status.podIP``) and RBAC objects, which
the agent can read; ``hidden/expected.toml`` with what the submission must mean: reachability,
permissions, and "nothing else" envelopes (:mod:`.expectations`); ``solutions/*/*.yaml``.

Verification: the YAML is read in a sandbox (:mod:`.documents`, :mod:`._parser`); every object is
validated against the pinned Kubernetes schema (:mod:`.schema`), applied to the cluster as
``kubectl apply`` would, its names checked as the API server checks them (:mod:`.names`), and its
meaning computed in the trusted process (:mod:`.network`, :mod:`.rbac`) and compared with the
expectations, one criterion each (:mod:`.admission`, :mod:`.expectations`). Guards follow, judged
against the reference applied to the same cluster (read in the same sandbox run): a connection from
or to outside the cluster's pods (the internet over IPv4 and IPv6, a pod of a namespace made
later), or between pods where no requirement decides, is allowed exactly where the reference allows
it; no subject the requirements do not entitle (anonymous, any signed-in user, a service account of
each namespace, anyone a binding names) holds a right the reference does not give it; and no
workload loses replicas or gains a power on its node (:mod:`.guards`). The cluster roles every
cluster has (``cluster-admin``, ``admin``, ``edit``, ``view``, ``system:`` roles) exist without
being declared (:mod:`.builtin`).

Agents act through :mod:`.tools` (the cluster, validation of a draft, submit; a ```yaml block in
single-turn mode). The audit tries the reward hacks of :mod:`.exploits`, the near misses of
:mod:`.mutants` and the changed expectations of :mod:`.probes`. :mod:`.generator` makes tasks
from the template bank (:mod:`.templates`, :mod:`.prompts`); :mod:`.manifests` serves
``assay config reachability`` and ``assay config permissions``.
"""

from assay.families.config.cluster import Cluster, ContainerPort, Pod
from assay.families.config.family import ConfigFamily
from assay.families.config.network import Connection, NetworkPolicy, Reachability
from assay.families.config.rbac import Grant, Permissions, Subject

__all__ = [
    "Cluster",
    "ConfigFamily",
    "Connection",
    "ContainerPort",
    "Grant",
    "NetworkPolicy",
    "Permissions",
    "Pod",
    "Reachability",
    "Subject",
]
