"""One list of bad inputs for every way a run is configured: `fedquad run` flags, config files, and
dashboard URLs. Each case names the fragment the one-line message (or the fallback) must show.
Every `fedquad run` flag must have at least one case here (tests/engine/cli/test_bad_inputs.py checks
that against the parser, so a new flag fails until it gets one). ``{tmp}`` is the test's folder."""

from fedquad_core.config.numbers import FLOAT_RULE, INT_RULE  # the one rule of numbers, one message

HUGE = "9" * 400  # a 400-digit integer
# (extra `fedquad run` arguments, fragment of the one-line error)
CLI = [
    (["--runs-dir", "/etc/passwd"], "is not a folder"),
    (["--runs-dir", ""], "is not a folder"),
    (["--config", "{tmp}/missing.json"], "cannot read --config"),
    (["--config", "/dev/zero"], "not a regular file"),  # used to block for ever
    (["--config", "{tmp}"], "cannot read --config"),  # a folder
    (["--dataset", "mnist"], "invalid choice: 'mnist' (choose from 'digits'"),
    (["--data-dir", "/nonexistent"], "--data-dir /nonexistent does not exist"),
    (["--dataset", "fashion-mnist", "--data-dir", "/nonexistent"], "does not exist"),
    (["--dataset", "cifar10", "--data-dir", "{tmp}/nothing"], "--download"),
    (["--data-dir", "/etc/passwd"], "is a file"),
    (["--data-dir", ""], "not a folder name"),
    (["--download=yes"], "ignored explicit argument"),
    (["--train-subset", "5"], "train subset"),
    (["--train-subset", "100000000"], "at most 1400"),
    (["--train-subset", "abc"], "is not an integer"),
    (["--clients", "0"], "--clients"),
    (["--clients", "ten"], "is not an integer"),
    (["--clients", "5000"], "lower --clients"),
    (["--alpha", "0"], "alpha"),
    (["--alpha", "-1"], "alpha"),
    (["--alpha", "nan"], "alpha must be a finite number"),
    (["--alpha", "inf"], "alpha must be a finite number"),
    (["--iid=1"], "ignored explicit argument"),
    (["--method", "nope"], "invalid choice: 'nope' (choose from 'fedavg'"),
    (["--seed", "-1"], "seed must be an integer in 0.."),
    (["--seed", "1.5"], "is not an integer"),
    (["--seed", str(2**64)], "seed must be an integer in 0.."),
    (["--min-size", "-1"], "--min-size"),
    (["--min-size", "10000"], "--min-size"),
    (["--clients", "50", "--alpha", "0.1", "--min-size", "10"], "raise alpha"),
    (["--model", "vgg"], "invalid choice: 'vgg'"),
    (["--model", "cnn"], "--model cnn needs images, but digits"),
    (["--model", "resnet18"], "--model resnet18 needs images"),
    (["--rounds", "0"], "--rounds"),
    (["--rounds", "1.5"], "is not an integer"),
    (["--participation", "nan"], "participation must be a finite number"),
    (["--participation", "nan", "--workers", "2"], "participation must be a finite number"),
    (["--participation", "0"], "--participation"),
    (["--participation", "1.5"], "--participation"),
    (["--participation", "inf"], "participation must be a finite number"),
    (["--local-epochs", "0"], "--local-epochs"),
    (["--local-epochs", "1000000000"], "local epochs must be an integer in 1..1000"),
    (["--batch-size", "0"], "--batch-size"),
    (["--lr", "0"], "--lr"),
    (["--lr", "-0.1"], "--lr"),
    (["--lr", "nan"], "lr must be a finite number"),
    (["--momentum", "-1"], "--momentum"),
    (["--momentum", "2"], "momentum must be at least 0 and below 1"),  # trained to 10 % with an overflow warning
    (["--momentum", "1"], "momentum must be at least 0 and below 1"),
    (["--iid", "--alpha", "0.1"], "--iid and --alpha contradict each other"),  # trained IID, dropped alpha
    (["--lr", "1e-320"], "below float32's smallest normal number"),  # 0 in float32
    (["--alpha", "1e-320"], "below float32's smallest normal number"),
    (["--rounds", "1_0"], INT_RULE),  # was read as 10
    (["--lr", "0.0_1"], FLOAT_RULE),
    (["--momentum", "inf"], "momentum must be a finite number"),
    (["--weight-decay", "-1"], "--weight-decay"),
    (["--augment=1"], "ignored explicit argument"),
    (["--augment"], "drop --augment"),
    (["--normalize-embeddings=no"], "ignored explicit argument"),
    (["--device", "tpu"], "invalid choice: 'tpu'"),
    (["--workers", "-1"], "--workers"),
    (["--workers", "many"], "is not an integer (plain digits 0-9"),
    (["--workers", "100000"], "workers must be an integer in 0..256"),
    (["--client-exec", "gpu"], "invalid choice: 'gpu'"),
    (["--snapshot-every", "0"], "--snapshot-every"),
    (["--snapshot-points", "5"], "--snapshot-points"),
    (["--eval-points", "5"], "--eval-points"),
    (["--local-clients", "-1"], "local clients must be an integer in 0..100"),
    (["--local-clients", "101"], "--local-clients"),
    (["--local-clients", "two"], "is not an integer"),
    (["--method", "fedprox", "--mu", "-1"], "--mu"),
    (["--method", "moon", "--tau", "0"], "--tau"),
    (["--method", "moon", "--proj-dim", "0"], "--proj-dim"),
    (["--method", "moon", "--proj-dim", "100000000"], "cannot be above 1024"),
    (["--method", "fedquad", "--beta", "-0.5"], "--beta"),
    (["--method", "triplet", "--margin", "-1"], "--margin"),
    (["--method", "fedquad", "--tuples-per-batch", "0"], "--tuples-per-batch"),
    (["--method", "fedquad", "--tuples-per-batch", "1.5"], "is not an integer"),
    (["--method", "fedquad", "--m1", "-1"], "--m1"),
    (["--method", "fedquad", "--m1", "nan"], "must be a number"),
    (["--method", "fedquad", "--m2", "-1"], "--m2"),
    (["--method", "fedavg", "--m1", "1"], "no parameter 'm1'"),
    (["--name", "two\nlines"], "no line breaks"),
    (["--name", "x" * 300], "at most 200"),
    (["--run-id", "../escape"], "invalid run id"),
    (["--run-id", "a/b"], "invalid run id"),
    (["--run-id", "not-a-run"], "exists and is not a run"),  # tests/engine/cli/test_bad_inputs.py makes this folder
    (["--threads", "-1"], "argument --threads: -1 is outside 1..1024"),
    (["--threads", "x"], "argument --threads: 'x' is not an integer"),
    (["--slots", "0"], "argument --slots: 0 is outside"),
    (["--no-progress=1"], "ignored explicit argument"),
    (["--again=1"], "ignored explicit argument"),
    # the one rule of numbers (fedquad_core/config/numbers.py): '_', other scripts' digits and integers
    # of any size are refused with the same line in every flag
    (["--workers", "1_0"], INT_RULE),
    (["--workers", "\u0661"], INT_RULE),  # Arabic-Indic one: was read as 1
    (["--threads", "\uff11\uff10"], INT_RULE),  # full-width 10
    (["--threads", "1_0"], INT_RULE),
    (["--slots", "\u0663"], INT_RULE),
    (["--rounds", "\u0663"], INT_RULE),
    (["--clients", "\u0661\u0660"], INT_RULE),
    (["--seed", "1_0"], INT_RULE),
    (["--rounds", HUGE], INT_RULE),
    (["--lr", HUGE], FLOAT_RULE),
    (["--alpha", "\u0660.\u0665"], FLOAT_RULE),
    (["--participation", "\uff11"], FLOAT_RULE),
    (["--method", "fedprox", "--mu", "1_0"], FLOAT_RULE),
    (["--method", "fedquad", "--tuples-per-batch", "\u0665"], INT_RULE),
    # empty values and impossible stores, refused before any work
    (["--config="], "--config is empty"),
    (["--run-id="], "--run-id is empty"),
    (["--name="], "--name is empty"),
    (["--name", "   "], "--name is empty"),
    (["--runs-dir", "/"], "the file system's root"),
    (["--runs-dir", "/proc"], "a kernel folder"),
    (["--runs-dir", "/sys/fedquad"], "a kernel folder"),
    (["--runs-dir", "/dev/shm/fedquad"], "a kernel folder"),
    # upper bounds (fedquad_core/config/limits.py): counts and sizes that fit the machine and the data
    (["--rounds", "1000000000"], "rounds cannot be above 10,000"),
    (["--snapshot-points", str(10**12)], "snapshot points cannot be above"),
    (["--snapshot-points", str(10**30)], "snapshot points cannot be above"),
    (["--eval-points", str(10**12)], "eval points cannot be above the"),
    (["--batch-size", str(10**12)], "batch size 1,000,000,000,000 is larger than"),
    (["--snapshot-every", str(10**18)], "snapshot every cannot be above 10,000"),
    (["--weight-decay", "1e308"], "weight decay must be a finite number float32 can hold"),
    (["--lr", "1e300"], "lr must be a finite number float32 can hold"),
    (["--method", "fedquad", "--beta", "1e300"], "fedquad beta must be a finite number float32 can hold"),
]

_WIDE = ",".join(str(i) for i in range(100))

# (extra `fedquad study run NAME` arguments, fragment): the grid goes through the same checks as a run
STUDY = [
    (["--grid", "seed=1e400"], "grid value '1e400' of seed is not an integer"),
    (["--grid", "clients=inf"], "of num_clients is not an integer"),
    (["--grid", "rounds=-inf"], "of rounds is not an integer"),
    (["--grid", "rounds=1000000000"], "rounds cannot be above 10,000"),
    (["--grid", "snapshot_points=1000000000000"], "snapshot points cannot be above"),
    (["--grid", "snapshot_points=1000000000000000000000000000000"], "snapshot points cannot be above"),
    (["--grid", "eval_points=1000000000000"], "eval points cannot be above the"),
    (["--grid", "batch_size=1000000000000"], "is larger than"),
    (["--grid", "snapshot_every=1000000000000000000"], "snapshot every cannot be above"),
    (["--grid", "weight_decay=1e308"], "weight decay must be a finite number float32 can hold"),
    (["--grid", "lr=1e400"], "lr must be a finite number"),
    (["--grid", f"seed={_WIDE}", "--grid", f"min_size={_WIDE}"], "10,000 points, more than 1,000"),
    (["--grid", "seed=0", "--title", "two\x00"], "the title must be text"),
    (["--grid", "workers=0,1"], "'workers' cannot be a grid axis"),  # made 2 points of one run
    (["--grid", "device=cpu,auto"], "'device' cannot be a grid axis"),
    (["--grid", "seed=1_0"], INT_RULE),  # was read as 10
    (["--grid", "seed=\uff11"], INT_RULE),
    (["--grid", "rounds=\u0663"], INT_RULE),
    (["--grid", "clients=1e3"], INT_RULE),
    (["--grid", f"seed={HUGE}"], INT_RULE),
    (["--grid", "lr=0.0_1"], FLOAT_RULE),
    (["--grid", "alpha=\u0660.\u0665"], FLOAT_RULE),
    (["--grid", "m1=1_0"], FLOAT_RULE),
    (["--grid", "alpha=0.1,0.5", "--iid"], "--iid and the alpha axis contradict each other"),  # the grid won
    (["--grid", "seed=0", "--config="], "--config is empty"),
    (["--grid", "seed=0", "--file="], "--file is empty"),  # was read as no file
    (["--grid", "seed=0", "--ray="], "--ray is empty"),
    (["--grid", "seed=0", "--jobs", "\u0662"], INT_RULE),
    (["--grid", "seed=0", "--runs-dir", "/"], "the file system's root"),
]

# (--file content: a dict, or raw JSON text; fragment): checked like `run --config`
STUDY_FILE = [
    ({"base": {"method": "fedavg", "method_params": {"m1": 1.0}}, "axes": {"seed": [0]}}, "no parameter 'm1'"),
    ({"base": {"method_params": {"bogus": 1}}, "axes": {"seed": [0]}}, "no parameter 'bogus'"),
    ({"base": {"method_params": {"bogus": 1}}, "axes": {"method": ["fedavg", "fedquad"]}}, "no parameter 'bogus'"),
    ({"title": 5, "axes": {"seed": [0]}}, "the title must be text"),
    ({"description": ["x"], "axes": {"seed": [0]}}, "the description must be text"),
    ({"axes": {"seed": [0]}, "method_params": {"m1": 1}}, "unknown key(s) method_params"),
    ({"axes": {"alpha": "0.1"}}, "grid axis 'alpha' must be a list of values"),  # a string for a list
    ({"axes": {"seed": [0]}, "points": []}, "unknown key(s) points"),  # not a whole stored study file
    ('{"axes": {"seed": [0]}, "axes": {"seed": [1]}}', "appears twice"),  # duplicate keys
    ('{"axes": {"seed": [1e400]}}', "of seed is not an integer"),
    ('{"axes": {"clients": [Infinity]}}', "of num_clients is not an integer"),
    ('{"axes": {"rounds": [-Infinity]}}', "of rounds is not an integer"),
    ('{"axes": {"seed": [0]}, "base": {"weight_decay": 1e308}}', "weight decay must be a finite number float32 can hold"),
    ('{"axes": {"seed": [0]}, "base": {"rounds": 1000000000}}', "rounds cannot be above"),
    ('{"axes": {"seed": [0]}, "base": {"lr": ' + HUGE + '}}', "lr must be a finite number"),
    ('{"axes": {"seed": [0]}, "base": {"alpha": ' + HUGE + '}}', "alpha must be a finite number"),
    ('{"axes": {"alpha": [' + HUGE + ']}}', "alpha must be a finite number"),
    ('{"axes": {"m1": [' + HUGE + ']}}', "fedquad m1 must be a number"),
    ('{"axes": {"seed": ["1_0"]}}', INT_RULE),
]

# (extra `fedquad sweep` arguments, fragment): the sweep shares `run`'s options and validation
SWEEP = [
    (["--threads", "-1"], "argument --threads: -1 is outside"),
    (["--jobs", "0"], "argument --jobs: 0 is outside"),
    (["--alphas", "nan"], "alpha must be a finite number"),
    (["--alphas", "abc"], "argument --alphas"),
    (["--seeds", "-1"], "seed must be an integer in 0.."),
    (["--clients", "0"], "clients must be an integer >= 1"),
    (["--methods", "nope"], "unknown method(s) nope"),
    (["--runs-dir", "/etc/passwd"], "is not a folder"),
    (["--model", "cnn"], "--model cnn needs images"),
    (["--participation", "nan"], "participation must be a finite number"),
    (["--data-dir", "/nonexistent"], "does not exist"),
    (["--metric", "speed"], "invalid choice: 'speed'"),
    (["--clients", "1_0"], INT_RULE),
    (["--clients", "\u0661\u0660"], INT_RULE),
    (["--seeds", "\uff10"], INT_RULE),
    (["--jobs", "1_0"], INT_RULE),
    (["--workers", "\u0662"], INT_RULE),
    (["--alphas", "0.1,\u0660.\u0665"], "argument --alphas"),
    (["--name="], "--name is empty"),
    (["--ray="], "--ray is empty"),
    (["--out", "{tmp}/missing/table.md"], "does not exist; create it first (checked before training)"),
    (["--out", "{tmp}"], "is a folder"),
    (["--runs-dir", "/"], "the file system's root"),
]

# (config file: a dict, or raw JSON text; fragment of the one-line error)
CONFIG = [
    ({"num_clients": "ten"}, "num_clients must be an integer"),
    ({"local_clients": True}, "local_clients must be an integer"),
    ({"local_clients": 1000}, "local clients must be an integer in 0..100"),
    ('{"num_clients": 1e309}', "num_clients must be an integer"),
    ({"num_clients": 1e20}, "num_clients must be an integer"),
    ({"participation": "0.5"}, "participation must be a finite number"),
    ('{"participation": NaN}', "participation must be a finite number"),
    ({"method_params": "abc"}, "method_params must be an object"),
    ({"method_params": [1, 2]}, "method_params must be an object"),
    ({"method": ["fedavg", "fedquad"]}, "method must be a string"),
    ({"seed": "abc"}, "seed must be an integer"),
    ({"seed": None}, "seed must be an integer"),
    ({"dataset": {}}, "dataset must be a string"),
    ({"data_dir": 123}, "data_dir must be a string or null"),
    ({"alpha": True}, "alpha must be a finite number or null"),
    ({"normalize_embeddings": "false"}, "normalize_embeddings must be true or false"),
    ({"download": 1}, "download must be true or false"),
    ({"augment": "yes"}, "augment must be true or false or null"),
    ({"lr": True}, "lr must be a finite number"),
    ('{"lr": Infinity}', "lr must be a finite number"),
    ({"rounds": 2.0}, "rounds must be an integer"),
    ({"workers": None}, "workers must be an integer"),
    ({"eval_points": 50.5}, "eval_points must be an integer or null"),
    ({"name": 5}, "name must be a string or null"),
    ({"device": 0}, "device must be a string"),
    ({"client_exec": None}, "client_exec must be a string"),
    ({"model": "resnet18"}, "--model resnet18 needs images"),
    ({"unknown_key": 1}, "unknown config key(s) unknown_key"),
    ({"method": "fedquad", "method_params": {"m1": "1"}}, "fedquad m1 must be a number"),
    ({"method": "fedquad", "method_params": {"m1": True}}, "fedquad m1 must be a number"),
    ({"method": "fedquad", "method_params": {"bogus": 1}}, "no parameter 'bogus'"),
    ("[1, 2]", "must hold a JSON object"),
    ("{not json", "cannot read --config"),
    ("\udcff", "cannot read --config"),
    # integers of any size where a number is wanted: one line, never an OverflowError traceback
    ('{"lr": ' + HUGE + '}', "lr must be a finite number"),
    ('{"alpha": ' + HUGE + '}', "alpha must be a finite number"),
    ('{"alpha": -' + HUGE + '}', "alpha must be a finite number"),
    ('{"participation": ' + HUGE + '}', "participation must be a finite number"),
    ('{"momentum": ' + HUGE + '}', "momentum must be a finite number"),
    ('{"method": "fedprox", "method_params": {"mu": ' + HUGE + '}}', "fedprox mu must be a number"),
    ('{"method": "fedquad", "method_params": {"m1": ' + HUGE + '}}', "fedquad m1 must be a number"),
    ('{"method": "fedquad", "method_params": {"m1": -' + HUGE + '}}', "fedquad m1 must be a number"),
    ('{"rounds": ' + HUGE + '}', "rounds cannot be above 10,000"),  # not UTF-8 (written with surrogateescape: one 0xff byte)
    ('{"name": "' + "x" * (1 << 20) + '"}', "too big for a settings file"),
]

# (dashboard page, URL query, widget key, the value the page falls back to: None = the page's default)
URL = [
    ("views/launch.py", {"l_fedquad_beta": "-3"}, "l_fedquad_beta", None),
    ("views/launch.py", {"l_fedquad_m1": "nan"}, "l_fedquad_m1", None),
    ("views/launch.py", {"l_fedquad_tuples_per_batch": "100000"}, "l_fedquad_tuples_per_batch", None),
    ("views/launch.py", {"l_participation": "0"}, "l_participation", None),
    ("views/launch.py", {"l_participation": "abc"}, "l_participation", None),
    ("views/launch.py", {"l_num_clients": "-5"}, "l_num_clients", None),
    ("views/launch.py", {"l_num_clients": "1e9"}, "l_num_clients", None),
    ("views/launch.py", {"l_rounds": "0"}, "l_rounds", None),
    ("views/launch.py", {"l_lr": "inf"}, "l_lr", None),
    ("views/launch.py", {"l_seed": "-1"}, "l_seed", None),
    ("views/launch.py", {"l_batch_size": "x"}, "l_batch_size", None),
    ("views/launch.py", {"l_dataset": "mnist"}, "l_dataset", None),
    ("views/launch.py", {"l_model": "vgg"}, "l_model", None),
    ("views/launch.py", {"l_device": "tpu"}, "l_device", None),
    ("views/launch.py", {"l_train_subset": "-100"}, "l_train_subset", None),
    ("views/launch.py", {"l_min_size": "99999999"}, "l_min_size", None),
]
URL += [
    ("views/partitions.py", {"p_clients": "0"}, "p_clients", None),
    ("views/partitions.py", {"p_seed": "-1"}, "p_seed", None),
    ("views/partitions.py", {"p_min": "1e9"}, "p_min", None),
    ("views/partitions.py", {"p_alpha": "7"}, "p_alpha", None),
    ("views/partitions.py", {"p_ds": "../etc"}, "p_ds", None),
    ("views/live.py", {"v_x": "time travel"}, "v_x", None),
    ("views/embeddings.py", {"e_proj": "TSNE"}, "e_proj", None),
    # the one rule of numbers (fedquad_core/config/numbers.py), as in every flag: '_', other scripts'
    # digits and integers of any size fall back to the default
    ("views/launch.py", {"l_num_clients": "\uff11\uff10"}, "l_num_clients", None),
    ("views/launch.py", {"l_rounds": "1_0"}, "l_rounds", None),
    ("views/launch.py", {"l_seed": "9" * 400}, "l_seed", None),
    ("views/launch.py", {"l_lr": "0.0_1"}, "l_lr", None),
    ("views/partitions.py", {"p_clients": "\u0661\u0665"}, "p_clients", None),
]

# Files the engine and the dashboard write or lock in a run store (issue 47): at each, a planted
# symbolic link (to a file outside the store) and a named pipe are refused with one line naming the
# path, nothing outside the store changes and nothing hangs (tests/engine/runs/test_planted_files.py
# runs each against the code that opens it). "RUN" stands for a run's folder.
PLANTED = [
    ".claims/{key}.lock",            # the claim of a run key (fedquad run, study points, dashboard runs)
    ".prefork.lock",                 # the warm server's whole-life lock
    ".prefork.log",                  # the warm server's output
    ".slots/slot-0",                 # a queued run's slot
    "studies/.grid.running",         # a study driver's running lock
    "studies/.grid.cancel",          # `fedquad study cancel`'s request (atomic write)
    ".studies/grid.log",             # a dashboard-launched study driver's output
    ".studies/grid.pid",             # its identity (atomic write)
    ".projection_worker.lock",       # the UMAP worker's whole-life lock
    ".projection_worker.log",        # the UMAP worker's output
    "RUN/metrics.jsonl",             # appended each round
    "RUN/log.txt",                   # a background run's output
    "RUN/cancel",                    # `fedquad cancel`'s request
    "RUN/status.json",               # atomic write: the link itself is replaced, never its target
    "RUN/embeddings/.umap_round_0001.log",   # a one-shot UMAP job's output
    "RUN/embeddings/.umap_round_0001.request",  # a request to the UMAP worker
]
