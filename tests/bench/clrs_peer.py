"""clrs_peer - CLRS's own baseline on Bellman-Ford, trained as run.py trains it.

Run with the peer's virtual environment (make peer: build/peer-venv), never
with the study's Python:

    build/peer-venv/bin/python tests/bench/clrs_peer.py train [--processor
        triplet_gmpnn|mpnn] [--seed S] [--steps N] [--eval-at 500,2000,10000]
        [--threads K] [--dar-test traced-64-node.mp] [--out peer.tsv]
        [--checkpoint-dir DIR [--checkpoint-every 500]]
    build/peer-venv/bin/python tests/bench/clrs_peer.py sample OUT.npz
        [--seed 3 --count 32 --length 64 --p 0.5]

`train` is google-deepmind/clrs's clrs/examples/run.py (dm-clrs 2.0.3) with
its defaults and --algorithms bellman_ford: the same samplers through run.py's
own make_multi_sampler (lengths 4, 7, 11, 13, 16 cycling, p in 0.1..0.9,
random_pos, sampled on the fly), the same numpy and JAX seeding order, the
same BaselineModel (hidden 128, layer norm, 8 triplet features,
encoded_decoded hints, soft re-prediction, no teacher forcing, xavier on
scalars, Adam 1e-3, gradient clipping at norm 1), validation on 2 x 32
graphs of 16 nodes every 50 steps keeping the best. Where run.py tests the
best parameters once at the end, this tests them at each step count of
--eval-at (so one run gives the 500-, 2,000- and 10,000-step rows: the
training before a step count is the same as run.py's with --train_steps set
to it, since testing draws from no shared random state), on CLRS-30's test
split regenerated from its sampler (`sample`'s defaults, as
clrs/_src/dataset.py builds the split: build_sampler('bellman_ford',
seed=CLRS30['test']['seed'] = 3, num_samples=32, length=64), then the
whole set in order, pos unrandomised) and on a dar stream converted by
scripts/clrs_convert.py.

Writes a TSV row per (step count, test set): seed, processor, step,
test_set, pointer_accuracy (CLRS's own evaluate: the share of nodes whose
argmax pointer is right), best_val_step, sec_per_step (median of the
jitted training step, loss fetched, over the steps after each shape's first
call), cpu_sec_per_step (the same median in CPU seconds of the whole
process, all its threads: on a shared machine the wall time counts the
other processes' turns too), sampler_sec_per_step (median time to draw a training batch, which
run.py spends too), threads, cpu.

--threads K restricts the process to K CPUs (sched_setaffinity, as taskset
does; --cpus names them, by default the K from the seed's turn, seed * K on,
so that concurrent seeds do not share a CPU, or all of them for a seed whose
turn runs past the last CPU; --cpus may name more than K, and
the kernel then places the K threads among them) and sets XLA's and the BLAS libraries' thread counts to K, before JAX
is imported.

--checkpoint-dir DIR makes a run resumable: every --checkpoint-every steps
(500 unless told) it replaces DIR/checkpoint.pkl (written aside, synced,
renamed) by everything the rest of the run depends on: the parameters, the
optimiser's state, the best validated parameters, the JAX key, the numpy
RandomStates (run.py's, shared by the samplers' position randomising, and
each CLRS sampler's own, with its padding length), how far the cycling
samplers have got, the step and validation counters, the timings, and the
rows and predictions of the --eval-at steps already passed.  The same
command with the same DIR resumes from it, and its --out and --predictions
are byte for byte those of an uninterrupted run (the timing columns aside),
losing at most --checkpoint-every steps of work; a checkpoint of other
arguments (those the results depend on: processor, seed, steps, eval-at,
eval-every, threads, the dar test set's name and content) or of other
package versions is refused, as is a corrupt one.  --stop-after K (for the
tests) ends the run after step K as a killed session would, exit status 75.
"""
import argparse
import contextlib
import hashlib
import os
import pickle
import subprocess
import sys
import time

PROG = "clrs_peer"
HERE = os.path.dirname(os.path.abspath(__file__))
CKPT_MAGIC = b"clrs_peer checkpoint 1\n"
# the arguments a run's results depend on: a checkpoint resumes only these
# (the dar test set counts by its name and its content's hash, not its path:
# a checkpoint carried to another machine or OUT resumes there)
RUN_ARGS = ("processor", "seed", "steps", "eval_at", "eval_every", "threads", "dar_test_name")
# what checkpoints of earlier versions hold and no longer count
RUN_ARGS_DROPPED = ("dar_test",)
RUN_PACKAGES = ("dm-clrs", "jax", "jaxlib", "dm-haiku", "optax", "numpy")
EX_STOPPED = 75


def die(msg):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(1)


def pin_threads(k, cpu_list=None, seed=0):
    """Before JAX and TensorFlow load: their pools size themselves on what
    the process may use.  Without --cpus, the k CPUs from the seed's turn
    (seed * k on): the seeds of `make -j` run on different CPUs, where the
    first k for every run would stack them all on CPU 0.  A seed whose turn
    runs past the last CPU is not pinned but may take any of them: pinned
    (wrapping), seeds 0 and 2 of three on two CPUs would share CPU 0 while
    CPU 1 idles once seed 1 is done.  --cpus may name more CPUs than k: the
    process then runs k threads wherever the kernel places them among
    those."""
    cpus = sorted(os.sched_getaffinity(0))
    if k < 1 or k > len(cpus):
        die(f"--threads {k}: this process may use {len(cpus)} CPUs")
    if cpu_list:
        try:
            chosen = [int(c) for c in cpu_list.split(",")]
        except ValueError:
            die(f"--cpus {cpu_list}: not a comma-separated list of CPU numbers")
        if len(chosen) < k or len(set(chosen)) != len(chosen) or not set(chosen) <= set(cpus):
            die(f"--cpus {cpu_list}: at least {k} distinct CPUs of {cpus} wanted")
    elif (seed + 1) * k <= len(cpus):
        chosen = cpus[seed * k:(seed + 1) * k]
    else:
        chosen = cpus
    os.sched_setaffinity(0, chosen)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS"):
        os.environ[var] = str(k)
    eigen = "false" if k == 1 else "true"
    # XLA's older CPU runtime, which jaxlib 0.4.32's changelog says the flag
    # brings back (its new thunk runtime is slower on many small ops:
    # jax-ml/jax#26145), is the faster here: the peer is trained and timed so
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               f" --xla_cpu_multi_thread_eigen={eigen} intra_op_parallelism_threads={k}"
                               " --xla_cpu_use_thunk_runtime=false").strip()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    os.environ["JAX_PLATFORMS"] = "cpu"


def cpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    for line in out.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def feedback_to_npz(fb):
    """A Feedback -> the converter's .npz layout (scripts/clrs_convert.py)."""
    import numpy as np
    out = {"input_" + dp.name: np.asarray(dp.data) for dp in fb.features.inputs}
    out.update({"hint_" + dp.name: np.asarray(dp.data) for dp in fb.features.hints})
    out.update({"output_" + dp.name: np.asarray(dp.data) for dp in fb.outputs})
    out["lengths"] = np.asarray(fb.features.lengths)
    return out


def npz_to_feedback(data, spec):
    """The converter's .npz layout -> a Feedback of CLRS DataPoints."""
    import clrs
    inputs, hints, outputs = [], [], []
    for key, value in data.items():
        stage, _, name = key.partition("_")
        if name not in spec:
            continue
        s, loc, typ = spec[name]
        dp = clrs.DataPoint(name=name, location=loc, type_=typ, data=value)
        {"input": inputs, "hint": hints, "output": outputs}[stage].append(dp)
    return clrs.Feedback(clrs.Features(tuple(inputs), tuple(hints), data["lengths"]), tuple(outputs))


def pointer_rows(pred, truth):
    """CLRS's hard pointer predictions (argmax indices as floats, [B, n]) as
    int32, checked against the truth's shape."""
    import numpy as np
    p = np.asarray(pred)
    t = next(dp for dp in truth if dp.name == "pi").data
    if p.shape != np.asarray(t).shape:
        die(f"predictions of shape {p.shape} for outputs of shape {np.asarray(t).shape}")
    return np.rint(p).astype(np.int32)


def clrs30_test(seed=3, count=32, length=64, p=None):
    """CLRS-30's test split of bellman_ford as clrs/_src/dataset.py builds it."""
    import clrs
    kwargs = {} if p is None else {"p": (p,)}
    sampler, _ = clrs.build_sampler("bellman_ford", seed=seed, num_samples=count, length=length, **kwargs)
    return sampler.next()


def cmd_sample(a):
    import numpy as np
    fb = clrs30_test(a.seed, a.count, a.length, a.p)
    with open(a.out, "wb") as f:
        np.savez_compressed(f, **feedback_to_npz(fb))


def run_identity(a):
    """What a checkpoint must share with the command resuming it."""
    from importlib import metadata
    ident = {k: getattr(a, k) for k in RUN_ARGS}
    if a.dar_test:
        try:
            with open(a.dar_test, "rb") as f:
                ident["dar_test_sha256"] = hashlib.sha256(f.read()).hexdigest()
        except OSError as e:
            die(f"--dar-test {a.dar_test}: {e}")
    # a checkpoint without the earlier steps' predictions cannot give them
    ident["predictions"] = bool(a.predictions)
    ident["packages"] = {p: metadata.version(p) for p in RUN_PACKAGES}
    return ident


def save_checkpoint(ckpt_dir, state):
    """Written aside, synced, renamed: a session ending mid-write leaves the
    previous checkpoint whole."""
    payload = pickle.dumps(state, protocol=4)
    path = os.path.join(ckpt_dir, "checkpoint.pkl")
    with open(path + ".tmp", "wb") as f:
        f.write(CKPT_MAGIC + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
        f.flush()
        os.fsync(f.fileno())
    os.replace(path + ".tmp", path)
    fd = os.open(ckpt_dir, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def load_checkpoint(ckpt_dir, ident):
    """DIR's checkpoint, None when it holds none, or one line and exit when
    it is unreadable or of another run."""
    path = os.path.join(ckpt_dir, "checkpoint.pkl")
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        die(f"{path}: {e}")
    head, digest, payload = blob[:len(CKPT_MAGIC)], blob[len(CKPT_MAGIC):len(CKPT_MAGIC) + 64], blob[len(CKPT_MAGIC) + 65:]
    if head != CKPT_MAGIC:
        die(f"{path}: not a clrs_peer checkpoint; remove it to start the run over")
    if hashlib.sha256(payload).hexdigest().encode() != digest:
        die(f"{path}: truncated or corrupt (its checksum does not match); remove it to start the run over")
    try:
        state = pickle.loads(payload)
        theirs = state["run"]
    except Exception as e:  # a checksummed payload that still fails: one line, not a traceback
        die(f"{path}: unreadable ({type(e).__name__}: {e}); remove it to start the run over")
    theirs = {k: v for k, v in theirs.items() if k not in RUN_ARGS_DROPPED}
    if theirs != ident:
        diff = [f"{k} {theirs.get(k)!r} there, {ident.get(k)!r} here"
                for k in sorted(set(theirs) | set(ident)) if theirs.get(k) != ident.get(k)]
        die(f"{path}: a checkpoint of another run ({'; '.join(diff)}); rerun with its arguments or remove it")
    return state


class Counted:
    """An iterator that counts its draws: where run.py's cycling samplers
    have got to."""

    def __init__(self, it):
        self.it, self.draws = it, 0

    def __iter__(self):
        return self

    def __next__(self):
        self.draws += 1
        return next(self.it)


@contextlib.contextmanager
def recording_samplers(clrs, into):
    """The CLRS samplers run.py's make_multi_sampler builds (inside its
    generators), kept in `into` for their random states."""
    build = clrs.build_sampler

    def record(*args, **kwargs):
        sampler, spec = build(*args, **kwargs)
        into.append(sampler)
        return sampler, spec
    clrs.build_sampler = record
    try:
        yield
    finally:
        clrs.build_sampler = build


def sampler_state(s):
    return (s._rng.get_state(), getattr(s, "max_steps", None))


def restore_sampling(state, rng, samplers, cycles):
    """Back to where the checkpoint's sampling was: each cycle drawn on to
    its saved position (its draws' randomness undone next), then every
    RandomState and padding length set to the saved ones."""
    for (it, period), draws in zip(cycles, state["draws"], strict=True):
        while it.draws % period != draws % period:
            next(it)
        it.draws = draws
    rng.set_state(state["numpy_rng"])
    for s, (rs, max_steps) in zip(samplers, state["samplers"], strict=True):
        s._rng.set_state(rs)
        if max_steps is not None:
            s.max_steps = max_steps


def cmd_train(a):
    # a checkpoint to refuse is refused before JAX and TensorFlow load (and
    # log): its pickle holds numpy arrays and Python values only
    resume = None
    if a.checkpoint_dir:
        ident = run_identity(a)
        os.makedirs(a.checkpoint_dir, exist_ok=True)
        resume = load_checkpoint(a.checkpoint_dir, ident)

    import functools
    import tempfile
    import numpy as np
    import jax
    import clrs
    from clrs.examples import run
    sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
    import clrs_convert

    algo = "bellman_ford"
    eval_at = sorted({int(x) for x in a.eval_at.split(",") if x})
    if not eval_at or eval_at[-1] > a.steps or eval_at[0] < 1:
        die(f"--eval-at {a.eval_at}: step counts must lie in 1..--steps ({a.steps})")
    cpu = cpu_model()
    if a.predictions:
        os.makedirs(a.predictions, exist_ok=True)

    # test sets first: they draw from no random state the training shares
    spec = clrs.SPECS[algo]
    tests = [("clrs30", clrs30_test())]
    if a.dar_test:
        try:
            with open(a.dar_test, "rb") as f:
                recs = clrs_convert.read_records(f)
        except OSError as e:
            die(f"--dar-test {a.dar_test}: {e}")
        tests.append((a.dar_test_name, npz_to_feedback(clrs_convert.records_to_npz(recs), spec)))

    # run.py's main, for one algorithm (the order of every draw kept)
    rng = np.random.RandomState(a.seed)
    rng_key = jax.random.PRNGKey(rng.randint(2**32))
    p = tuple([0.1 + 0.1 * i for i in range(9)])
    sampler_kwargs = dict(p=p, length_needle=-8)
    common = dict(algorithm=algo, rng=rng, enforce_pred_as_input=True, enforce_permutations=True, chunk_length=16)
    train_lengths = [4, 7, 11, 13, 16]
    samplers = []
    with recording_samplers(clrs, samplers):
        train_sampler, _, _ = run.make_multi_sampler(
            sizes=train_lengths, split="train", batch_size=32, multiplier=-1, randomize_pos=True,
            chunked=False, sampler_kwargs=sampler_kwargs, **common)
        mult = clrs.CLRS_30_ALGS_SETTINGS[algo]["num_samples_multiplier"]
        val_sampler, val_samples, spec = run.make_multi_sampler(
            sizes=[np.amax(train_lengths)], split="val", batch_size=32, multiplier=2 * mult, randomize_pos=True,
            chunked=False, sampler_kwargs=sampler_kwargs, **common)
    train_sampler, val_sampler = Counted(train_sampler), Counted(val_sampler)
    cycles = ((train_sampler, len(train_lengths)), (val_sampler, 1))

    processor_factory = clrs.get_processor_factory(a.processor, use_ln=True, nb_triplet_fts=8, nb_heads=1)
    ckpt = tempfile.mkdtemp(prefix="clrs-peer-")
    model = clrs.models.BaselineModel(
        spec=[spec], dummy_trajectory=[next(val_sampler)], processor_factory=processor_factory,
        hidden_dim=128, encode_hints=True, decode_hints=True, encoder_init="xavier_on_scalars",
        use_lstm=False, learning_rate=0.001, grad_clip_max_norm=1.0, checkpoint_path=ckpt,
        freeze_processor=False, dropout_prob=0.0, hint_teacher_forcing=0.0, hint_repred_mode="soft",
        nb_msg_passing_steps=1)

    out = open(a.out, "w") if a.out else sys.stdout
    print("seed\tprocessor\tstep\ttest_set\tpointer_accuracy\tbest_val_step\tbest_val_score"
          "\tsec_per_step\tcpu_sec_per_step\tsampler_sec_per_step\tthreads\tcpu", file=out, flush=True)
    best_score, best_params, best_step = -1.0, None, -1
    next_eval, step = 0, 0
    seen_shapes, step_times, cpu_times, sample_times = set(), [], [], []
    rows, predictions = [], {}
    if resume:
        try:
            restore_sampling(resume, rng, samplers, cycles)
            rng_key = jax.numpy.asarray(resume["rng_key"])
            step, next_eval = resume["step"], resume["next_eval"]
            best_score, best_step, best_params = resume["best"]
            # seen_shapes stays empty: this process compiles each shape anew
            step_times, cpu_times, sample_times = resume["timings"]
            rows, predictions = resume["rows"], resume["predictions"]
        except (KeyError, ValueError, TypeError) as e:
            die(f"{a.checkpoint_dir}: a checkpoint this run cannot resume from ({type(e).__name__}: {e})")
        print(f"{PROG}: resuming at step {step} of {a.steps} from {a.checkpoint_dir}", file=sys.stderr, flush=True)
        for row in rows:
            print(row, file=out, flush=True)
        for fname, pred in predictions.items() if a.predictions else ():
            np.save(os.path.join(a.predictions, fname), pred)

    def checkpoint():
        save_checkpoint(a.checkpoint_dir, {
            "run": ident, "args": vars(a), "step": step, "next_eval": next_eval,
            "params": model.params, "opt_state": jax.tree_util.tree_leaves(model.opt_state),
            "best": (best_score, best_step, best_params), "rng_key": np.asarray(jax.device_get(rng_key)),
            "numpy_rng": rng.get_state(), "samplers": [sampler_state(s) for s in samplers],
            "draws": [c.draws for c, _ in cycles], "timings": (step_times, cpu_times, sample_times),
            "rows": rows, "predictions": predictions})

    predict = functools.partial(model.predict, algorithm_index=0)
    initialised = False
    while step < a.steps:
        t0 = time.perf_counter()
        feedback = next(train_sampler)
        t1, c1 = time.perf_counter(), time.process_time()
        if not initialised:
            initialised = True
            model.init([feedback.features], a.seed + 1)
            if resume:
                try:
                    model.params = resume["params"]
                    model.opt_state = jax.tree_util.tree_unflatten(
                        jax.tree_util.tree_structure(model.opt_state), resume["opt_state"])
                except (KeyError, ValueError, TypeError) as e:
                    die(f"{a.checkpoint_dir}: a checkpoint this run cannot resume from ({type(e).__name__}: {e})")
        rng_key, new_rng_key = jax.random.split(rng_key)
        loss = float(model.feedback(rng_key, feedback, 0))
        t2, c2 = time.perf_counter(), time.process_time()
        rng_key = new_rng_key
        # a shape's first call compiles: not a step's time
        shape = tuple(dp.data.shape for dp in feedback.features.hints)
        if shape in seen_shapes:
            step_times.append(t2 - t1)
            cpu_times.append(c2 - c1)
        seen_shapes.add(shape)
        sample_times.append(t1 - t0)
        if step >= next_eval:
            new_rng_key, rng_key = jax.random.split(rng_key)
            val = run.collect_and_eval(val_sampler, predict, val_samples, new_rng_key, extras=None)["score"]
            next_eval += a.eval_every
            if val > best_score or step == 0:
                best_score, best_step = val, step
                best_params = jax.device_get(model.params)
            if a.verbose:
                print(f"{PROG}: step {step} loss {loss:.4f} val {val:.4f} best {best_score:.4f}@{best_step}",
                      file=sys.stderr, flush=True)
        step += 1
        if step in eval_at:
            current = model.params
            model.params = best_params
            sps = float(np.median(step_times)) if step_times else float("nan")
            cps = float(np.median(cpu_times)) if cpu_times else float("nan")
            smp = float(np.median(sample_times))
            for name, fb in tests:
                # a fixed key: prediction draws nothing (no dropout), and the
                # training's key must not move
                preds, _ = model.predict(jax.random.PRNGKey(0), fb.features, algorithm_index=0)
                acc = clrs.evaluate(fb.outputs, preds)["pi"]
                if a.predictions:
                    # the argmax pointers, one row a graph in the test set's
                    # order: scripts/clrs_convert.py with-predictions puts
                    # them on dar's records for metrics --per-graph
                    fname = f"{name}-{step}.npy"
                    predictions[fname] = pointer_rows(preds["pi"].data, fb.outputs)
                    np.save(os.path.join(a.predictions, fname), predictions[fname])
                rows.append(f"{a.seed}\t{a.processor}\t{step}\t{name}\t{float(acc):.6f}\t{best_step}\t{best_score:.6f}"
                            f"\t{sps:.6f}\t{cps:.6f}\t{smp:.6f}\t{a.threads}\t{cpu}")
                print(rows[-1], file=out, flush=True)
            model.params = current
        if a.checkpoint_dir and (step % a.checkpoint_every == 0 or step == a.steps):
            checkpoint()
        if step == a.stop_after:
            print(f"{PROG}: stopped after step {step} (--stop-after)", file=sys.stderr, flush=True)
            sys.exit(EX_STOPPED)
    if out is not sys.stdout:
        out.close()


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train")
    t.add_argument("--processor", default="triplet_gmpnn", choices=["triplet_gmpnn", "mpnn"])
    t.add_argument("--seed", type=int, default=42)
    t.add_argument("--steps", type=int, default=10000)
    t.add_argument("--eval-at", default="500,2000,10000")
    t.add_argument("--eval-every", type=int, default=50)
    t.add_argument("--threads", type=int, default=1)
    t.add_argument("--cpus", default=None, help="which CPUs (at least --threads of them; more lets the kernel place the threads among them); by default K from the seed's turn (seed * K on), all of them for a seed whose turn runs past the last")
    t.add_argument("--dar-test", default=None, help="a traced dar shortest-paths stream, one n")
    t.add_argument("--dar-test-name", default="dar64")
    t.add_argument("--out", default=None)
    t.add_argument("--predictions", default=None, metavar="DIR",
                   help="also save each test set's predicted pi at each --eval-at step as DIR/<set>-<step>.npy")
    t.add_argument("--checkpoint-dir", default=None, metavar="DIR",
                   help="keep a checkpoint of the run in DIR (every --checkpoint-every steps, and at the end); "
                   "the same command run again resumes from it, its outputs those of an uninterrupted run; "
                   "one of other arguments or a corrupt one is refused (the top of this file says more)")
    t.add_argument("--checkpoint-every", type=int, default=500, metavar="N",
                   help="checkpoint every N steps (with --checkpoint-dir; 500 unless told)")
    t.add_argument("--stop-after", type=int, default=None, metavar="K",
                   help="(tests) end after step K as a killed session would, exit status 75")
    t.add_argument("-v", "--verbose", action="store_true")
    s = sub.add_parser("sample")
    s.add_argument("out")
    s.add_argument("--seed", type=int, default=3)
    s.add_argument("--count", type=int, default=32)
    s.add_argument("--length", type=int, default=64)
    s.add_argument("--p", type=float, default=None, help="the sampler's p (its default 0.5 when absent)")
    s.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    pin_threads(a.threads, getattr(a, "cpus", None), getattr(a, "seed", 0))
    if a.cmd == "train":
        if a.steps < 1:
            die(f"--steps {a.steps}: at least 1")
        if a.checkpoint_every < 1:
            die(f"--checkpoint-every {a.checkpoint_every}: at least 1")
        cmd_train(a)
    else:
        cmd_sample(a)


if __name__ == "__main__":
    main()
