#!/usr/bin/env python3
"""gensim's word2vec (skip-gram, negative sampling) on walks written by
tests/tools/n2v_bench, for tests/bench/node2vec.sh.

    node2vec_gensim.py WALKS.txt WINDOW NEGATIVE WORKERS

The peer of node2vec's training that aditya-grover/node2vec uses:
Word2Vec(vector_size=128, window=WINDOW, sg=1, negative=NEGATIVE,
workers=WORKERS), one epoch, min_count=1 and sample=0 (every walk node is
kept, as node2vec keeps it), read through corpus_file (gensim's fastest
path, its reading in Cython).  Only train() is timed, not build_vocab().

Prints: seconds (wall), cpu_seconds (all threads), walks, words, and pair updates (a dot product and its two
updates: each (centre, context) pair of gensim's shrunk symmetric windows,
expected over the shrink, times 1 + NEGATIVE)."""
import sys, time
import numpy as np
from gensim.models import Word2Vec

path, window, negative, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
lengths = np.array([line.count(" ") + 1 for line in open(path)], dtype=np.int64)
model = Word2Vec(vector_size=128, window=window, sg=1, negative=negative, workers=workers, min_count=1,
                 sample=0, seed=1)
model.build_vocab(corpus_file=path)
start, cpu_start = time.perf_counter(), time.process_time()
model.train(corpus_file=path, total_words=model.corpus_total_words, total_examples=len(lengths), epochs=1)
seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start

# gensim's skip-gram: position i with reduced window r (uniform in 1..window)
# pairs with min(r, i) nodes before it and min(r, L-1-i) after it.
pairs = 0.0
for L in np.unique(lengths):
    i = np.arange(L)[:, None]
    r = np.arange(1, window + 1)[None, :]
    per_walk = (np.minimum(r, i) + np.minimum(r, L - 1 - i)).mean(1).sum()
    pairs += per_walk * (lengths == L).sum()
print("seconds=%.4f cpu_seconds=%.4f walks=%d words=%d pairs=%.0f" % (seconds, cpu_seconds, len(lengths), lengths.sum(),
                                                                    pairs * (1 + negative)))
