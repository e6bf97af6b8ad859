"""A GRPO step on the CPU with assay's rewards: a 2-layer model with random weights and a
tokenizer trained here, so nothing is downloaded. ``python examples/grpo.py TASKS train.jsonl``
(``train.jsonl`` from ``assay export tasks TASKS --out train.jsonl``)."""

import json
import sys

from datasets import load_dataset
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
from trl import GRPOConfig, GRPOTrainer

from assay.integrations.trl import AssayRewards

tasks, data, out = sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "grpo-out"
dataset = load_dataset("json", data_files=data)["train"]
bpe = Tokenizer(models.BPE(unk_token="<unk>"))
bpe.pre_tokenizer = pre_tokenizers.ByteLevel()
special = ["<unk>", "<pad>", "<eos>"]
texts = [m["content"] for row in dataset for m in row["prompt"]]
bpe.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=400, special_tokens=special))
tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, unk_token=special[0],
                                    pad_token=special[1], eos_token=special[2])
tokenizer.chat_template = "{% for m in messages %}{{m.role}}: {{m.content}}\n{% endfor %}assistant:"
shape = LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
                    num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2)
rewards = AssayRewards(tasks)  # the task set the dataset was exported from
args = GRPOConfig(output_dir=out, max_steps=2, per_device_train_batch_size=4, num_generations=4,
                  max_completion_length=16, reward_weights=[1.0, 0.0], use_cpu=True,
                  report_to=[], logging_steps=1, save_strategy="no")
trainer = GRPOTrainer(model=LlamaForCausalLM(shape), processing_class=tokenizer, args=args,
                      reward_funcs=[rewards.reward, rewards.errors], train_dataset=dataset)
trainer.train()
for entry in trainer.state.log_history:
    print(json.dumps({k: v for k, v in entry.items() if k.startswith(("rewards/", "step"))}))
print(f"judged {rewards.judged} completions; {rewards.unjudged} could not be judged")
