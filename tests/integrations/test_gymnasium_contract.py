"""Gymnasium's contract where an agent's own actions reach it: single-turn environments pass
the checker, the same seed and answer give the same info, and whatever a command prints is an
observation of the declared space."""

from __future__ import annotations

import json

import gymnasium
from gymnasium.utils.env_checker import check_env

from assay.integrations.gymnasium import ENV_IDS, AssayEnv
from assay.sandbox import PoolSandbox
from tests.conftest import REFERENCE, make_median_task


def test_a_single_turn_environment_passes_gymnasiums_checker(pool: PoolSandbox) -> None:
    tasks = [make_median_task("median-1"), make_median_task("median-2")]
    env = gymnasium.make(ENV_IDS["code"], tasks=tasks, sandbox=pool, mode="single")
    check_env(env.unwrapped)  # its determinism check steps twice with one seed and action
    env.close()


def test_the_same_seed_and_answer_give_the_same_info(pool: PoolSandbox) -> None:
    env = AssayEnv("code", tasks=[make_median_task()], sandbox=pool, mode="single")
    answer = f"```python\n{REFERENCE.decode()}```\n"
    infos = []
    for _ in range(2):
        env.reset(seed=4)
        _, reward, terminated, _, info = env.step(answer)
        assert (reward, terminated) == (1.0, True)
        infos.append(info)
    assert infos[0] == infos[1]
    assert infos[0]["verdict"]["status"] == "pass"
    assert infos[0]["verdict"]["versions"]["family"].startswith("code@")


def test_what_a_command_prints_is_an_observation_of_the_space(pool: PoolSandbox) -> None:
    env = gymnasium.make(ENV_IDS["code"], tasks=[make_median_task()], sandbox=pool)
    env.reset(seed=0)
    printf = r"printf 'a\000b\355\240\200c'"  # a NUL, then bytes that are no UTF-8
    run = json.dumps({"tool": "run", "arguments": {"command": printf}})
    observation, _, _, _, _ = env.step(run)
    assert env.observation_space.contains(observation), repr(observation)
    assert "a\ufffdb" in observation
    write = {"tool": "write_file", "arguments": {"path": "nul.txt", "content": "p\0q"}}
    env.step(json.dumps(write))
    read = json.dumps({"tool": "read_file", "arguments": {"path": "nul.txt"}})
    observation, _, _, _, _ = env.step(read)
    assert env.observation_space.contains(observation), repr(observation)
    assert "p\ufffdq" in observation
    assert env.render() is None
    env.close()


def test_a_prompt_past_the_space_is_cut_to_an_observation_of_it(pool: PoolSandbox) -> None:
    # a task directory's prompt.md may hold a MiB, more characters than the space allows
    long = make_median_task().model_copy(update={"prompt": "x" * 1_040_000})
    for mode in ("tools", "single"):
        env = AssayEnv("code", tasks=[long], sandbox=pool, mode=mode)  # type: ignore[arg-type]
        observation, _ = env.reset(seed=0)
        assert env.observation_space.contains(observation), (mode, len(observation))
        assert observation.endswith("characters in all, the first ones shown]")
        env.close()
