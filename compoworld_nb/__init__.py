"""Compositional Environment Scaling (CompoWorld), Jupyter-native: services, composition, walks, rubric tasks, rollouts and rubric-reward training.

Modules:

- `compoworld_nb.tinymodel`: A byte-level BPE tokenizer, a tool-calling chat template TRL accepts, and a seeded tiny `Qwen3ForCausalLM`, all built locally (no model hub).
- `compoworld_nb.train`: SFT on verified trajectories and multi-turn GRPO on rubric rewards, through TRL 1.14.2 on CPU with a tiny offline model, or through Unsloth on one GPU with the same functions."""

__version__ = "0.0.1"
