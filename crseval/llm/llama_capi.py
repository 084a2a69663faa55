"""llama.cpp's own C API inside the prebuilt ``xllamacpp`` wheel, through ctypes (no compiler): what the
wheel's server API does not give — the model's last-layer hidden states over chosen prompt tokens, read in
the same prefill that gives the next-token distribution.

The wheel's shared object exports llama.cpp's C functions (``llama_decode``, ``llama_get_embeddings_ith``,
…). Their structs are declared here only as far as crseval touches them: the context parameters' first
four fields (checked against llama.cpp's defaults before anything is changed) and ``llama_batch``
(checked after ``llama_batch_init``). A build whose layout differs is refused in one line, never guessed
at. Parameter structs are passed as opaque buffers larger than any llama.cpp has used, filled by llama.cpp's
own ``*_default_params``.

The prompt is the chat template the GGUF carries, rendered with Jinja2 as llama-cpp-python renders it
(the compiled engine), so both engines read the same tokens.
"""

from __future__ import annotations

import ctypes
import importlib.util
import struct
from datetime import datetime
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from crseval.llm.spans import span_rows, span_tokens

_PARAMS_BYTES = 1024  # larger than llama.cpp's context and model parameter structs
# n_ctx, n_batch, n_ubatch, n_seq_max as llama.cpp defaults them
DEFAULT_CONTEXT = (512, 2048, 512, 1)


class _Params(ctypes.Structure):
    _fields_ = [("raw", ctypes.c_ubyte * _PARAMS_BYTES)]


class _Batch(ctypes.Structure):
    _fields_ = [
        ("n_tokens", ctypes.c_int32),
        ("token", ctypes.POINTER(ctypes.c_int32)),
        ("embd", ctypes.c_void_p),
        ("pos", ctypes.POINTER(ctypes.c_int32)),
        ("n_seq_id", ctypes.POINTER(ctypes.c_int32)),
        ("seq_id", ctypes.POINTER(ctypes.POINTER(ctypes.c_int32))),
        ("logits", ctypes.POINTER(ctypes.c_int8)),
    ]


_LOG = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
# kept referenced: llama.cpp calls it for its lifetime
_QUIET = _LOG(lambda level, text, data: None)


def library_path() -> Path:
    spec = importlib.util.find_spec("xllamacpp")
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(
            "hidden states on the default engine need the xllamacpp wheel (crseval[local])"
        )
    folder = Path(list(spec.submodule_search_locations)[0])
    found = sorted(folder.glob("xllamacpp*.so")) + sorted(folder.glob("xllamacpp*.pyd"))
    if not found:
        raise ValueError(f"no llama.cpp library in {folder}")
    return found[0]


def _bind(lib: ctypes.CDLL) -> None:
    c = ctypes
    sigs = {
        "llama_backend_init": ([], None),
        "llama_log_set": ([_LOG, c.c_void_p], None),
        "llama_model_default_params": ([], _Params),
        "llama_context_default_params": ([], _Params),
        "llama_model_load_from_file": ([c.c_char_p, _Params], c.c_void_p),
        "llama_init_from_model": ([c.c_void_p, _Params], c.c_void_p),
        "llama_model_get_vocab": ([c.c_void_p], c.c_void_p),
        "llama_model_chat_template": ([c.c_void_p, c.c_char_p], c.c_char_p),
        "llama_model_n_embd": ([c.c_void_p], c.c_int32),
        "llama_vocab_n_tokens": ([c.c_void_p], c.c_int32),
        "llama_vocab_bos": ([c.c_void_p], c.c_int32),
        "llama_vocab_eos": ([c.c_void_p], c.c_int32),
        "llama_token_to_piece": (
            [c.c_void_p, c.c_int32, c.c_char_p, c.c_int32, c.c_int32, c.c_bool],
            c.c_int32,
        ),
        "llama_tokenize": (
            [
                c.c_void_p,
                c.c_char_p,
                c.c_int32,
                c.POINTER(c.c_int32),
                c.c_int32,
                c.c_bool,
                c.c_bool,
            ],
            c.c_int32,
        ),
        "llama_n_ctx": ([c.c_void_p], c.c_uint32),
        "llama_n_batch": ([c.c_void_p], c.c_uint32),
        "llama_pooling_type": ([c.c_void_p], c.c_int),
        "llama_set_n_threads": ([c.c_void_p, c.c_int32, c.c_int32], None),
        "llama_set_embeddings": ([c.c_void_p, c.c_bool], None),
        "llama_get_memory": ([c.c_void_p], c.c_void_p),
        "llama_memory_seq_rm": ([c.c_void_p, c.c_int32, c.c_int32, c.c_int32], c.c_bool),
        "llama_batch_init": ([c.c_int32, c.c_int32, c.c_int32], _Batch),
        "llama_batch_free": ([_Batch], None),
        "llama_decode": ([c.c_void_p, _Batch], c.c_int32),
        "llama_get_logits_ith": ([c.c_void_p, c.c_int32], c.POINTER(c.c_float)),
        "llama_get_embeddings_ith": ([c.c_void_p, c.c_int32], c.POINTER(c.c_float)),
    }
    for name, (args, res) in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, res


def load_library(library: Path | None = None) -> ctypes.CDLL:
    """The wheel's llama.cpp, bound and checked: its context parameters begin with llama.cpp's defaults and
    a batch is laid out as :class:`_Batch` (a build that differs is refused before a model is loaded)."""
    lib = ctypes.CDLL(str(library or library_path()))
    _bind(lib)
    lib.llama_log_set(_QUIET, None)
    lib.llama_backend_init()
    found = struct.unpack_from("<4I", bytes(lib.llama_context_default_params().raw))
    if found != DEFAULT_CONTEXT:
        raise ValueError(
            "this xllamacpp build's llama.cpp context parameters are not laid out as crseval expects "
            f"(defaults {found}, expected {DEFAULT_CONTEXT})"
        )
    lib.llama_batch_free(_batch(lib, 8))
    return lib


def _batch(lib: ctypes.CDLL, n: int) -> _Batch:
    b = lib.llama_batch_init(n, 0, 1)
    if b.embd or not (b.token and b.pos and b.n_seq_id and b.seq_id and b.logits):
        raise ValueError("this xllamacpp build's llama_batch is not laid out as crseval expects")
    return b


class StateReader:
    """One model and context on llama.cpp's C API: next-token probabilities of a chat prompt and, from the
    same prefill, the hidden states of character spans of its last user message. With ``reuse_prefix``
    the KV cache of the prompt prefix shared with the previous request is reused (faster; the answer then
    depends on the request before it)."""

    def __init__(
        self,
        path: str,
        n_ctx: int,
        n_threads: int,
        library: Path | None = None,
        reuse_prefix: bool = False,
    ) -> None:
        self.reuse_prefix = reuse_prefix
        lib = self.lib = load_library(library)
        params = bytearray(bytes(lib.llama_context_default_params().raw))
        struct.pack_into("<3I", params, 0, n_ctx, 512, 512)  # n_ctx, n_batch, n_ubatch
        self.model = lib.llama_model_load_from_file(
            str(path).encode(), lib.llama_model_default_params()
        )
        if not self.model:
            raise ValueError(f"llama.cpp could not load {path}")
        self.ctx = lib.llama_init_from_model(self.model, _Params.from_buffer_copy(bytes(params)))
        if not self.ctx or lib.llama_n_ctx(self.ctx) != n_ctx:
            raise ValueError("llama.cpp could not create a context with crseval's parameters")
        if lib.llama_pooling_type(self.ctx) != 0:  # per-token states need pooling 'none'
            raise ValueError("the model pools its embeddings: no per-token hidden states")
        lib.llama_set_n_threads(self.ctx, n_threads, n_threads)
        self.vocab = lib.llama_model_get_vocab(self.model)
        self.width = lib.llama_model_n_embd(self.model)
        self.n_ctx, self.n_batch = n_ctx, int(lib.llama_n_batch(self.ctx))
        self.batch = lib.llama_batch_init(self.n_batch, 0, 1)
        b = self.batch
        if b.embd or not (b.token and b.pos and b.n_seq_id and b.seq_id and b.logits):
            raise ValueError(
                "this xllamacpp build's llama_batch is not laid out as crseval expects"
            )
        self.cached: list[int] = []  # the tokens whose keys and values the context holds
        template = lib.llama_model_chat_template(self.model, None)
        self.template = _jinja(template.decode()) if template else None

    def piece(self, token: int) -> str:
        buf = ctypes.create_string_buffer(64)
        n = self.lib.llama_token_to_piece(self.vocab, token, buf, 64, 0, True)
        return buf.raw[: max(n, 0)].decode("utf-8", "replace")

    def tokenize(self, text: str) -> list[int]:
        data = text.encode("utf-8")
        cap = len(data) + 8
        buf = (ctypes.c_int32 * cap)()
        n = self.lib.llama_tokenize(self.vocab, data, len(data), buf, cap, False, True)
        if n < 0:
            raise ValueError(f"could not tokenize a text of {len(data)} bytes")
        return list(buf[:n])

    def prompt(self, messages: Sequence[dict[str, str]]) -> str:
        if self.template is None:
            raise ValueError("this model has no chat template; choice probabilities need one")
        vocab = self.vocab
        return self.template.render(
            messages=list(messages),
            eos_token=self.piece(self.lib.llama_vocab_eos(vocab)),
            bos_token=self.piece(self.lib.llama_vocab_bos(vocab)),
            add_generation_prompt=True,
            raise_exception=_raise,
            strftime_now=lambda fmt="%Y-%m-%d %H:%M:%S": datetime.now().strftime(fmt),
        )

    def choice_probs(
        self,
        messages: Sequence[dict[str, str]],
        choices: Sequence[str],
        spans: Sequence[Sequence[int]],
    ) -> tuple[dict[str, float], int, str]:
        """(probability of each single-token choice after the prompt, prompt tokens, the spans' states
        as :func:`crseval.llm.spans.span_rows`)."""
        prompt = self.prompt(messages)
        tokens = self.tokenize(prompt)
        if len(tokens) >= self.n_ctx:
            raise ValueError(f"prompt of {len(tokens)} tokens exceeds the context of {self.n_ctx}")
        ranges = span_tokens(
            prompt, messages[-1]["content"], spans, lambda s: len(self.tokenize(s))
        )
        logits, states = self._prefill(tokens, {t for r in ranges if r for t in range(*r)})
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        out = {}
        for c in choices:
            ids = self.tokenize(c)
            out[c] = float(probs[ids[0]]) if ids else 0.0
        return out, len(tokens), span_rows(ranges, states, self.width)

    def _prefill(
        self, tokens: list[int], wanted: set[int]
    ) -> tuple[np.ndarray, dict[int, np.ndarray]]:
        """(the last position's logits, the ``wanted`` positions' states): the prompt is decoded from its
        start (with ``reuse_prefix``, from the first position that differs from the cached prefix or is
        wanted), with llama.cpp's embedding output on for the wanted positions only."""
        lib, ctx, b = self.lib, self.ctx, self.batch
        common = 0
        for x, y in zip(self.cached if self.reuse_prefix else [], tokens):
            if x != y:
                break
            common += 1
        start = min([common, len(tokens) - 1, *wanted])
        lib.llama_memory_seq_rm(lib.llama_get_memory(ctx), -1, start, -1)
        self.cached = self.cached[:start]
        states: dict[int, np.ndarray] = {}
        last = len(tokens) - 1
        lib.llama_set_embeddings(ctx, True)
        try:
            for i in range(start, len(tokens), self.n_batch):
                chunk = tokens[i : i + self.n_batch]
                b.n_tokens = len(chunk)
                for j, tok in enumerate(chunk):
                    b.token[j], b.pos[j], b.n_seq_id[j] = tok, i + j, 1
                    b.seq_id[j][0] = 0
                    b.logits[j] = (i + j) in wanted or i + j == last
                if (rc := lib.llama_decode(ctx, b)) != 0:
                    raise ValueError(f"llama_decode failed ({rc})")
                for j in range(len(chunk)):
                    if i + j in wanted:
                        row = lib.llama_get_embeddings_ith(ctx, j)
                        states[i + j] = np.ctypeslib.as_array(row, shape=(self.width,)).copy()
                self.cached = tokens[: i + len(chunk)]
            n_vocab = lib.llama_vocab_n_tokens(self.vocab)
            logits = np.ctypeslib.as_array(lib.llama_get_logits_ith(ctx, -1), shape=(n_vocab,))
            return logits.astype(np.float64), states
        finally:
            lib.llama_set_embeddings(ctx, False)


def _raise(message: str) -> Any:
    raise ValueError(message)


def _jinja(template: str):
    from jinja2 import BaseLoader
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(loader=BaseLoader(), trim_blocks=True, lstrip_blocks=True)
    return env.from_string(template)
