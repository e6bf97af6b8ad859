"""Scores rows through verl's own reward machinery, in the environment of ``make verl``:
``python verl_reward_loop.py ROWS.json OUT.json``.

``ROWS.json`` holds ``{"trainer": [rows, ...], "batch": [rows, ...]}``, each ``rows`` one
batch of ``{"task_id", "response", "extra_info"}``. The ``trainer`` batches go the way verl
0.9's PPO trainer sends them: its ``ppo_trainer`` config composed with Hydra and
``reward.custom_reward_function`` pointed at ``assay/integrations/verl.py``, a
``RewardLoopManager`` on a local Ray cluster, ``compute_rm_score`` on a ``DataProto`` of
tokenized prompts and responses. The ``batch`` batches go through the ``BatchRewardManager`` verl
still ships, with ``compute_score_batch`` loaded by the same ``get_custom_reward_fn``. The
tokenizer is trained here on the rows, so nothing is downloaded.

``OUT.json`` gets, for each batch, either ``{"scores": [...], "extra": {key: [...]}}`` (the
reward at each response's last token and the reward's extra info) or ``{"raised": [class
names], "message": ...}`` when verl's call raised.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import ray
import torch
import verl
from hydra import compose, initialize_config_dir
from omegaconf import DictConfig
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast
from verl import DataProto
from verl.experimental.reward_loop import RewardLoopManager
from verl.trainer.ppo.reward import get_custom_reward_fn
from verl.workers.reward_manager import get_reward_manager_cls

REWARDS = importlib.util.find_spec("assay.integrations.verl").origin  # the file users point at
PROMPT = "Write median(values) in solution.py."
SPECIAL = ["<unk>", "<pad>", "<eos>"]


def tokenizer_dir(texts: list[str], where: Path) -> Path:
    """A byte-level BPE tokenizer trained on ``texts``, saved where ``AutoTokenizer`` loads it."""
    bpe = Tokenizer(models.BPE(unk_token=SPECIAL[0]))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=600, special_tokens=SPECIAL))
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe, unk_token=SPECIAL[0], pad_token=SPECIAL[1], eos_token=SPECIAL[2]
    )
    tokenizer.save_pretrained(where)
    return where


def config(tokenizer: Path, function: str) -> DictConfig:
    """verl's PPO trainer config, with assay's reward function as its custom reward."""
    overrides = [
        f"actor_rollout_ref.model.path={tokenizer}",
        f"reward.custom_reward_function.path={REWARDS}",
        f"reward.custom_reward_function.name={function}",
        "reward.num_workers=1",
    ]
    where = Path(verl.__file__).parent / "trainer" / "config"
    with initialize_config_dir(config_dir=str(where), version_base=None):
        return compose(config_name="ppo_trainer", overrides=overrides)


def batch(rows: list[dict[str, Any]], tokenizer: Any) -> DataProto:
    """The rows as a rollout hands them on: left-padded prompts, right-padded responses with
    an end-of-sequence token, one attention mask over both."""
    prompts = [tokenizer.encode(PROMPT) for _ in rows]
    responses = [[*tokenizer.encode(row["response"]), tokenizer.eos_token_id] for row in rows]
    width_p = max(map(len, prompts))
    width_r = max(map(len, responses))
    pad = tokenizer.pad_token_id
    prompt_ids = torch.tensor([[pad] * (width_p - len(p)) + p for p in prompts])
    response_ids = torch.tensor([r + [pad] * (width_r - len(r)) for r in responses])
    mask = torch.tensor(
        [
            [0] * (width_p - len(p)) + [1] * (len(p) + len(r)) + [0] * (width_r - len(r))
            for p, r in zip(prompts, responses, strict=True)
        ]
    )
    return DataProto.from_dict(
        tensors={
            "prompts": prompt_ids,
            "responses": response_ids,
            "input_ids": torch.cat([prompt_ids, response_ids], dim=1),
            "attention_mask": mask,
        },
        non_tensors={
            "data_source": np.array(["assay"] * len(rows), dtype=object),
            "reward_model": np.array(
                [{"style": "rule", "ground_truth": row["task_id"]} for row in rows], dtype=object
            ),
            "extra_info": np.array([dict(row["extra_info"]) for row in rows], dtype=object),
        },
    )


def last_token_rewards(rewards: torch.Tensor, data: DataProto) -> list[float]:
    """Each row's reward, which verl puts at its response's last valid token."""
    width = data.batch["prompts"].shape[-1]
    lengths = data.batch["attention_mask"][:, width:].sum(dim=-1)
    return [float(rewards[i, int(n) - 1]) for i, n in enumerate(lengths)]


def plain(value: Any) -> Any:
    """``value`` as JSON can hold it (verl hands back numpy arrays and scalars)."""
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def raised(exc: BaseException) -> dict[str, Any]:
    """What verl's call raised: every class the exception is (Ray wraps the worker's)."""
    return {"raised": [cls.__name__ for cls in type(exc).__mro__], "message": str(exc)}


def through_the_trainer(rows: list[dict[str, Any]], tokenizer: Path) -> dict[str, Any]:
    """The rows scored as verl 0.9's PPO trainer scores a rollout."""
    manager = RewardLoopManager(config(tokenizer, "compute_score"))
    data = batch(rows, PreTrainedTokenizerFast.from_pretrained(tokenizer))
    try:
        scored = manager.compute_rm_score(data)
    except Exception as exc:  # noqa: BLE001 - whatever verl raised is the observation
        return raised(exc)
    keys = scored.meta_info["reward_extra_keys"]
    return {
        "scores": last_token_rewards(scored.batch["rm_scores"], data),
        "extra": {key: plain(scored.non_tensor_batch[key]) for key in keys},
    }


def through_the_batch_manager(rows: list[dict[str, Any]], tokenizer: Path) -> dict[str, Any]:
    """The rows scored by verl's ``BatchRewardManager`` and ``compute_score_batch``."""
    compute_score = get_custom_reward_fn(config(tokenizer, "compute_score_batch"))
    loaded = PreTrainedTokenizerFast.from_pretrained(tokenizer)
    manager = get_reward_manager_cls("batch")(
        tokenizer=loaded, num_examine=0, compute_score=compute_score
    )
    data = batch(rows, loaded)
    try:
        scored = manager(data, return_dict=True)
    except Exception as exc:  # noqa: BLE001 - whatever verl raised is the observation
        return raised(exc)
    return {
        "scores": last_token_rewards(scored["reward_tensor"], data),
        "extra": {key: plain(values) for key, values in scored["reward_extra_info"].items()},
    }


def main(rows_file: str, out_file: str) -> None:
    rows = json.loads(Path(rows_file).read_text())
    texts = [PROMPT] + [row["response"] for way in rows.values() for b in way for row in b]
    with tempfile.TemporaryDirectory() as scratch:
        tokenizer = tokenizer_dir(texts, Path(scratch) / "tokenizer")
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            out = {
                "trainer": [through_the_trainer(r, tokenizer) for r in rows["trainer"]],
                "batch": [through_the_batch_manager(r, tokenizer) for r in rows["batch"]],
            }
        finally:
            ray.shutdown()
    Path(out_file).write_text(json.dumps(out))


if __name__ == "__main__":
    main(*sys.argv[1:])
