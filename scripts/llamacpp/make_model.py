"""Makes the tiny model the real llama.cpp tests serve: a random-weight two-layer Llama in GGUF
(the harness measures serving, not answers) with a small byte-level BPE vocabulary, and the same
vocabulary and merges as an HF `tokenizer.json` for clients that count tokens themselves
(`vllm bench serve`). Nothing is downloaded. Usage: make_model.py OUT_DIR

Traps met (design/engines.md): a vocabulary holding all 256 byte tokens makes every answer a
500 (the model emits invalid UTF-8), so the vocabulary is printable ASCII and the newline only;
an empty merges list is dropped by the writer and llama.cpp then refuses the vocabulary, so it
has a few merges."""

import json
import os
import sys

import gguf
import numpy as np

N_EMBD = 256
N_FF = 768
N_HEAD = 4
N_LAYER = 4
N_CTX = 2048


def byte_to_unicode() -> dict:
    """GPT-2's byte-level alphabet: each byte as the printable character BPE vocabularies use."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    chars = printable[:]
    n = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(printable, chars)}


def vocabulary():
    table = byte_to_unicode()
    singles = [table[b] for b in [0x0A] + list(range(0x20, 0x7F))]
    pairs = [("Ġ", "t"), ("t", "h"), ("Ġ", "a"), ("i", "n"), ("e", "r"), ("o", "n"), ("r", "e"), ("h", "e"), ("Ġt", "he")]
    merges = [f"{a} {b}" for a, b in pairs]
    tokens = ["<s>", "</s>"] + singles + [a + b for a, b in pairs]
    return tokens, merges


def main(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    tokens, merges = vocabulary()
    rng = np.random.default_rng(0)

    def weight(*shape):
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    writer = gguf.GGUFWriter(os.path.join(out, "model.gguf"), "llama")
    writer.add_name("tiny")
    writer.add_context_length(N_CTX)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD)
    writer.add_rope_dimension_count(N_EMBD // N_HEAD)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_types([gguf.TokenType.CONTROL] * 2 + [gguf.TokenType.NORMAL] * (len(tokens) - 2))
    writer.add_token_merges(merges)
    writer.add_bos_token_id(0)
    writer.add_eos_token_id(1)
    writer.add_add_bos_token(False)
    n_vocab = len(tokens)
    writer.add_tensor("token_embd.weight", weight(n_vocab, N_EMBD))
    writer.add_tensor("output_norm.weight", np.ones(N_EMBD, dtype=np.float32))
    writer.add_tensor("output.weight", weight(n_vocab, N_EMBD))
    for i in range(N_LAYER):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            writer.add_tensor(f"blk.{i}.{name}.weight", weight(N_EMBD, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        writer.add_tensor(f"blk.{i}.ffn_gate.weight", weight(N_FF, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_up.weight", weight(N_FF, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_down.weight", weight(N_EMBD, N_FF))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()

    # The same vocabulary as an HF tokenizer, for clients that count tokens themselves.
    tokenizer = {
        "version": "1.0",
        "added_tokens": [
            {"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
            for i, t in enumerate(tokens[:2])
        ],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                  "vocab": {t: i for i, t in enumerate(tokens)}, "merges": merges},
    }
    with open(os.path.join(out, "tokenizer.json"), "w") as f:
        json.dump(tokenizer, f)
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump({"bos_token": "<s>", "eos_token": "</s>", "tokenizer_class": "PreTrainedTokenizerFast",
                   "model_max_length": N_CTX}, f)


if __name__ == "__main__":
    main(sys.argv[1])
