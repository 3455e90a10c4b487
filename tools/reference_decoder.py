#!/usr/bin/python3
"""The reference for `fovea bench`'s decoder cases: the most used open-source PyTorch decoder
(sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning: models.py, the training step of train.py and
the beam search of caption.py), at the sizes `fovea bench` uses, timed the way `fovea bench`
times its cases. Prints one JSON line per case, like `fovea bench`.

Run it in the same shell as `fovea bench`, with the same variables (docs/performance.md):

    /usr/bin/python3 tools/reference_decoder.py --threads 1 --lengths <fovea bench's caption_lengths>

and with `--device cuda` beside `fovea bench --device cuda` on a GPU.

It gives itself the process settings `fovea` gives itself at start-up (huge pages for malloc,
passive waiting threads, denormals flushed to zero), so that a ratio compares the decoders and
not the processes. Needs Debian's python3-torch.
"""
import argparse
import ctypes
import json
import os
import statistics
import sys
import time


def match_fovea_process():
    """Re-runs this script, once, with the variables `fovea` sets for itself before anything else
    starts (core/runtime/process_startup.cpp); exported values win, as they do for `fovea`. glibc
    reads GLIBC_TUNABLES only when a process starts, hence the re-exec. Returns the tunables this
    process started with (those in effect; with FOVEA_NO_REEXEC set, as they were)."""
    in_effect = os.environ.get("GLIBC_TUNABLES")
    changed = False
    for name, value in (("OMP_WAIT_POLICY", "PASSIVE"), ("OPENBLAS_THREAD_TIMEOUT", "4")):
        if name not in os.environ:
            os.environ[name] = value
            changed = True
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    if "glibc.malloc.hugetlb" not in tunables:
        os.environ["GLIBC_TUNABLES"] = (tunables + ":" if tunables else "") + "glibc.malloc.hugetlb=1"
        changed = True
    if changed and "FOVEA_NO_REEXEC" not in os.environ:
        os.environ["FOVEA_NO_REEXEC"] = "1"
        os.execv(sys.executable, [sys.executable] + sys.argv)
    return in_effect


GLIBC_TUNABLES = match_fovea_process()

import torch  # noqa: E402 (after the re-exec: nothing of it is loaded twice)
from torch import nn  # noqa: E402
from torch.nn.utils.rnn import pack_padded_sequence  # noqa: E402


class Attention(nn.Module):
    def __init__(self, encoder_dim, decoder_dim, attention_dim):
        super().__init__()
        self.encoder_att = nn.Linear(encoder_dim, attention_dim)
        self.decoder_att = nn.Linear(decoder_dim, attention_dim)
        self.full_att = nn.Linear(attention_dim, 1)
        self.relu = nn.ReLU()
        self.softmax = nn.Softmax(dim=1)

    def forward(self, encoder_out, decoder_hidden):
        att1 = self.encoder_att(encoder_out)
        att2 = self.decoder_att(decoder_hidden)
        att = self.full_att(self.relu(att1 + att2.unsqueeze(1))).squeeze(2)
        alpha = self.softmax(att)
        return (encoder_out * alpha.unsqueeze(2)).sum(dim=1), alpha


class DecoderWithAttention(nn.Module):
    def __init__(self, attention_dim, embed_dim, decoder_dim, vocab_size, encoder_dim, dropout=0.5):
        super().__init__()
        self.vocab_size = vocab_size
        self.attention = Attention(encoder_dim, decoder_dim, attention_dim)
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        self.dropout = nn.Dropout(p=dropout)
        self.decode_step = nn.LSTMCell(embed_dim + encoder_dim, decoder_dim, bias=True)
        self.init_h = nn.Linear(encoder_dim, decoder_dim)
        self.init_c = nn.Linear(encoder_dim, decoder_dim)
        self.f_beta = nn.Linear(decoder_dim, encoder_dim)
        self.sigmoid = nn.Sigmoid()
        self.fc = nn.Linear(decoder_dim, vocab_size)

    def init_hidden_state(self, encoder_out):
        mean_encoder_out = encoder_out.mean(dim=1)
        return self.init_h(mean_encoder_out), self.init_c(mean_encoder_out)

    def forward(self, encoder_out, encoded_captions, caption_lengths):
        batch_size = encoder_out.size(0)
        num_pixels = encoder_out.size(1)
        caption_lengths, sort_ind = caption_lengths.squeeze(1).sort(dim=0, descending=True)
        encoder_out = encoder_out[sort_ind]
        encoded_captions = encoded_captions[sort_ind]
        embeddings = self.embedding(encoded_captions)
        h, c = self.init_hidden_state(encoder_out)
        decode_lengths = (caption_lengths - 1).tolist()
        predictions = torch.zeros(batch_size, max(decode_lengths), self.vocab_size).to(encoder_out.device)
        alphas = torch.zeros(batch_size, max(decode_lengths), num_pixels).to(encoder_out.device)
        for t in range(max(decode_lengths)):
            batch_size_t = sum([l > t for l in decode_lengths])
            awe, alpha = self.attention(encoder_out[:batch_size_t], h[:batch_size_t])
            gate = self.sigmoid(self.f_beta(h[:batch_size_t]))
            awe = gate * awe
            h, c = self.decode_step(torch.cat([embeddings[:batch_size_t, t, :], awe], dim=1),
                                    (h[:batch_size_t], c[:batch_size_t]))
            preds = self.fc(self.dropout(h))
            predictions[:batch_size_t, t, :] = preds
            alphas[:batch_size_t, t, :] = alpha
        return predictions, encoded_captions, decode_lengths, alphas, sort_ind


def set_blas_threads(n):
    """torch.set_num_threads does not reach OpenBLAS's own thread pool (Debian's torch links the
    pthread OpenBLAS): without this the products of a `--threads 1` run use every core. `fovea
    bench` sets the same limit. Returns the count OpenBLAS reports, or None without OpenBLAS."""
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "libopenblas" in line}
    if not paths:
        return None
    blas = ctypes.CDLL(paths.pop())
    blas.openblas_set_num_threads(n)
    return blas.openblas_get_num_threads()


def time_it(fn, warmup, repeat, device):
    """Like fovea bench: `warmup` untimed runs and at least half a second of them, then `repeat` timed,
    each up to the end of its GPU work."""
    def run():
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
    start = time.perf_counter()
    done = 0
    while done < warmup or time.perf_counter() - start < 0.5:
        run()
        done += 1
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return {"median_s": statistics.median(times), "min_s": min(times), "max_s": max(times), "runs": repeat}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--lengths", default="",
                   help="the words of the 32 captions, comma-separated: fovea bench's caption_lengths "
                        "(default: 32 lengths drawn uniformly from 8..22, seed 7)")
    p.add_argument("--case", action="append", help="decoder_train_step, beam_search, greedy_batch (default all)")
    p.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N (as fovea bench --device)")
    args = p.parse_args()
    device = torch.device(args.device)
    torch.set_num_threads(args.threads)
    # As fovea does (MXCSR's flush-to-zero and denormals-are-zero); False where the CPU has no such mode.
    denormals_flushed = torch.set_flush_denormal(True)
    blas_threads = set_blas_threads(args.threads)
    cases = args.case or ["decoder_train_step", "beam_search", "greedy_batch"]
    V, D, E, A, H, B, L = 10000, 512, 512, 512, 512, 32, 196
    env = {k: os.environ.get(k) for k in ("ATEN_CPU_CAPABILITY", "DNNL_MAX_CPU_ISA", "OPENBLAS_CORETYPE")}
    config = torch.__config__.show()
    capability = next((line.split("CPU capability usage:")[1].strip() for line in config.splitlines()
                       if "CPU capability usage:" in line), None)
    gpu = torch.cuda.get_device_name(device) if device.type == "cuda" else None
    print(json.dumps({"case": "environment", "program": "reference (PyTorch " + torch.__version__ + ")",
                      "device": str(device), "gpu": gpu,
                      "aten_cpu_capability": capability, "blas_threads": blas_threads,
                      "glibc_tunables": GLIBC_TUNABLES, "denormals_flushed": denormals_flushed, **env}), flush=True)

    torch.manual_seed(7)
    dec = DecoderWithAttention(A, E, H, V, D).to(device)
    enc = torch.randn(B, L, D).to(device)

    if "decoder_train_step" in cases:
        if args.lengths:
            words = [int(x) for x in args.lengths.split(",")]
        else:
            g = torch.Generator().manual_seed(7)
            words = torch.randint(8, 23, (B,), generator=g).tolist()
        assert len(words) == B, "--lengths needs 32 values"
        T = max(words) + 2
        caps = torch.zeros(B, T, dtype=torch.long)
        for i, n in enumerate(words):  # <start> w1..wn <end>, then padding
            caps[i, 0] = 1
            caps[i, 1:n + 1] = torch.randint(4, V, (n,))
            caps[i, n + 1] = 2
        caplens = torch.tensor([[n + 2] for n in words])
        caps, caplens = caps.to(device), caplens.to(device)
        opt = torch.optim.Adam(dec.parameters(), lr=1e-4)
        criterion = nn.CrossEntropyLoss()
        dec.train()

        def step():  # train.py: decoder only, alpha_c 1, gradients clamped at 5
            scores, caps_sorted, decode_lengths, alphas, _ = dec(enc, caps, caplens)
            targets = caps_sorted[:, 1:]
            scores = pack_padded_sequence(scores, decode_lengths, batch_first=True).data
            targets = pack_padded_sequence(targets, decode_lengths, batch_first=True).data
            loss = criterion(scores, targets) + 1.0 * ((1. - alphas.sum(dim=1)) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            for group in opt.param_groups:
                for q in group["params"]:
                    if q.grad is not None:
                        q.grad.data.clamp_(-5, 5)
            opt.step()

        t = time_it(step, args.warmup, args.repeat, device)
        print(json.dumps({"case": "decoder_train_step", "program": "reference", "threads": args.threads,
                          "device": str(device), "tokens": sum(n + 1 for n in words), **t}), flush=True)

    dec.eval()
    if "beam_search" in cases:
        k = 5

        @torch.no_grad()
        def beam():  # caption.py's caption_image_beam_search over 20 steps, <end> masked
            encoder_out = enc[:1].expand(k, L, D)
            k_prev_words = torch.LongTensor([[1]] * k).to(device)
            seqs = k_prev_words
            top_k_scores = torch.zeros(k, 1).to(device)
            seqs_alpha = torch.ones(k, 1, 14, 14).to(device)
            h, c = dec.init_hidden_state(encoder_out)
            for step_i in range(20):
                embeddings = dec.embedding(k_prev_words).squeeze(1)
                awe, alpha = dec.attention(encoder_out, h)
                alpha = alpha.view(-1, 14, 14)
                gate = dec.sigmoid(dec.f_beta(h))
                awe = gate * awe
                h, c = dec.decode_step(torch.cat([embeddings, awe], dim=1), (h, c))
                scores = torch.log_softmax(dec.fc(h), dim=1)
                scores[:, 2] = -float("inf")
                scores = top_k_scores.expand_as(scores) + scores
                if step_i == 0:
                    top_k_scores, top_k_words = scores[0].topk(k, 0, True, True)
                else:
                    top_k_scores, top_k_words = scores.view(-1).topk(k, 0, True, True)
                prev_word_inds = torch.div(top_k_words, V, rounding_mode="floor")
                next_word_inds = top_k_words % V
                seqs = torch.cat([seqs[prev_word_inds], next_word_inds.unsqueeze(1)], dim=1)
                seqs_alpha = torch.cat([seqs_alpha[prev_word_inds], alpha[prev_word_inds].unsqueeze(1)], dim=1)
                h, c = h[prev_word_inds], c[prev_word_inds]
                top_k_scores = top_k_scores.unsqueeze(1)
                k_prev_words = next_word_inds.unsqueeze(1)
            return seqs, seqs_alpha

        t = time_it(beam, args.warmup, args.repeat, device)
        print(json.dumps({"case": "beam_search", "program": "reference", "threads": args.threads,
                          "device": str(device), "beam": 5, "steps": 20, **t}), flush=True)

    if "greedy_batch" in cases:
        @torch.no_grad()
        def greedy():  # the same step, 32 images, the most likely word each step
            h, c = dec.init_hidden_state(enc)
            words = torch.ones(B, dtype=torch.long, device=device)
            out = []
            for _ in range(20):
                awe, alpha = dec.attention(enc, h)
                awe = dec.sigmoid(dec.f_beta(h)) * awe
                h, c = dec.decode_step(torch.cat([dec.embedding(words), awe], dim=1), (h, c))
                words = dec.fc(h).argmax(1)
                out.append((words, alpha))
            return out

        t = time_it(greedy, args.warmup, args.repeat, device)
        print(json.dumps({"case": "greedy_batch", "program": "reference", "threads": args.threads,
                          "device": str(device), "batch": 32, "steps": 20, **t}), flush=True)


if __name__ == "__main__":
    main()
