"""codesim from Python: scenarios loaded, changed and run in-process on the C++ library, reports
as pandas DataFrames.

    import codesim
    report = codesim.load("scenarios/paper/tpot-ib.json").run()
    report.tables["tpot-bound"]          # a DataFrame: the columns of `codesim run --format csv`
    codesim.load(path, sets={"/workload/arrivals/rate_per_s": 80}).run().rows

    codesim.kernels.gemm(m=[64, 4096], n=7168, k=2048)   # the kernel models asked directly

Bad input raises codesim.InputError: str(e) is the CLI's line, e.path the JSON pointer, file
or argument it names.

Data: an installed package reads the data installed beside it; CODESIM_DATA=DIR[:DIR...] and
codesim.add_data(DIR) add folders searched first (a GPU, a model, a GEMM library of your own).
"""
import json
import math
import os
import pathlib

from . import _codesim


def _find_install_prefix():
    """The prefix codesim was installed under (its share/codesim/data beside the package: pip
    puts both in the package folder, `cmake --install` in PREFIX/lib/python3/dist-packages)."""
    here = pathlib.Path(__file__).resolve().parent
    for prefix in (here, *here.parents[:4]):
        if (prefix / "share" / "codesim" / "data").is_dir():
            return prefix
    return None


if _find_install_prefix() is not None:
    _codesim.set_install_prefix(str(_find_install_prefix()))
_codesim.add_data_dirs_from_environment()

from . import kernels  # noqa: E402  (after the data folders are known)

__version__ = _codesim.version

__all__ = ["__version__", "InputError", "kernels", "add_data", "step", "Scenario", "Report", "load", "tables", "sweep", "plan", "calibrate", "schedule", "fp8", "models", "gpus", "nodes"]

InputError = _codesim.InputError
InputError.__str__ = lambda self: self.args[0]
InputError.path = property(lambda self: self.args[1] if len(self.args) > 1 else "")

COLUMNS = ["table", "id", "label", "metric", "unit", "paper", "ours", "delta_rel", "basis"]


def _pandas():
    """pandas, imported when a frame is asked for: loading and running scenarios do not need it."""
    try:
        import pandas
    except ImportError:
        raise ImportError("codesim returns tables as pandas DataFrames: install pandas (python3-pandas)") from None
    return pandas


def _frame(records):
    return _pandas().DataFrame.from_records(records, columns=COLUMNS)


def _plain(value):
    """json.dumps' fallback: NumPy scalars and arrays (anything with tolist()) as Python values."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not allowed; numbers, strings, booleans, lists and dicts")


def _non_finite(value, path):
    """The path of the first number in `value` that JSON cannot hold (NaN, an infinity), or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return path
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        found = _non_finite(item, f"{path}/{key}")
        if found is not None:
            return found
    return None


def _json(value, where=""):
    """JSON text of `value`; InputError naming the path of a NaN or an infinity (JSON has neither)."""
    try:
        return json.dumps(value, default=_plain, allow_nan=False)
    except ValueError:
        path = _non_finite(json.loads(json.dumps(value, default=_plain)), where) or where
        raise InputError(f"{path}: a number that is not finite (NaN or an infinity) is not allowed; JSON holds finite numbers", path) from None


class Report:
    """What a run reports: its tables (one DataFrame per table id), every row in one long
    DataFrame, the notes and warnings, and the JSON `codesim run --format json` prints."""

    def __init__(self, document):
        self._document = document

    @property
    def rows(self):
        return _frame([dict(row, table=t["id"]) for t in self._document["tables"] for row in t["rows"]])

    @property
    def tables(self):
        return {t["id"]: _frame([dict(row, table=t["id"]) for row in t["rows"]]) for t in self._document["tables"]}

    @property
    def notes(self):
        return [note for t in self._document["tables"] for note in t["notes"]]

    @property
    def warnings(self):
        return list(self._document.get("warnings", []))

    def to_json(self):
        return json.dumps({"tables": self._document["tables"]}, indent=2)

    def __repr__(self):
        return f"<codesim.Report: {', '.join(t['id'] for t in self._document['tables'])}>"


class Scenario:
    """A loaded, validated scenario."""

    def __init__(self, handle):
        self._handle = handle
        self.kind = handle.kind
        self.title = handle.title
        self.table = handle.table_id

    def run(self, engine=None, trace=None, progress=None):
        """Runs it, the GIL released while it simulates. `engine`: "fluid" (default) or
        "simgrid"; `trace`: a path for the Chrome trace; `progress`: a callable taking (what,
        share done) that long work calls now and then, or None for a tqdm bar where tqdm is
        installed, or False. Ctrl-C stops long work (KeyboardInterrupt), as does an exception
        the callable raises."""
        if engine is not None and not isinstance(engine, str):
            raise TypeError(f"engine: {engine!r} is not allowed; 'fluid' or 'simgrid'")
        if trace is not None and not isinstance(trace, (str, os.PathLike)):
            raise TypeError(f"trace: {trace!r} is not allowed; a file path")
        if progress is not None and progress is not False and not callable(progress):
            raise TypeError(f"progress: {progress!r} is not allowed; a callable (what, share), None or False")
        bar = _TqdmProgress() if progress is None else None
        try:
            callback = bar if bar is not None and bar.available else (progress or None)
            text = _codesim.run(self._handle, engine or "fluid", os.fspath(trace) if trace is not None else "", callback)
        finally:
            if bar is not None:
                bar.close()
        return Report(json.loads(text))

    def __repr__(self):
        return f"<codesim.Scenario {self.kind}: {self.title}>"


class _TqdmProgress:
    """A tqdm bar per piece of long work, where tqdm is installed."""

    def __init__(self):
        try:
            import tqdm

            self._tqdm = tqdm.tqdm
        except ImportError:
            self._tqdm = None
        self._bar, self._what = None, None

    @property
    def available(self):
        return self._tqdm is not None

    def __call__(self, what, share):
        if what != self._what:
            self.close()
            self._bar, self._what = self._tqdm(total=1000, desc=what, leave=False), what
        self._bar.update(int(share * 1000) - self._bar.n)

    def close(self):
        if self._bar is not None:
            self._bar.close()
        self._bar, self._what = None, None


def _assignment(pointer, value):
    if not isinstance(pointer, str) or not pointer.startswith("/"):
        raise TypeError(f"sets: key {pointer!r} is not allowed; a JSON pointer such as '/workload/duration_s'")
    try:
        return f"{pointer}={_json(value, pointer)}"
    except TypeError as error:
        raise TypeError(f"sets: {pointer}: {error}") from None


def load(source, sets=None):
    """A scenario from a file path or a dict (a scenario document), with `sets` applied first:
    {JSON pointer: value}, as the CLI's --set /pointer=VALUE."""
    if sets is None:
        sets = {}
    if not isinstance(sets, dict):
        raise TypeError(f"sets: {type(sets).__name__} is not allowed; a dict of JSON pointer to value")
    assignments = [_assignment(k, v) for k, v in sets.items()]
    if isinstance(source, dict):
        return Scenario(_codesim.load(_json(source), False, assignments))
    if isinstance(source, (str, os.PathLike)):
        return Scenario(_codesim.load(os.fspath(source), True, assignments))
    raise TypeError(f"source: {type(source).__name__} is not allowed; a file path or a dict")


def tables(only=None, check=False):
    """The papers' tables (`codesim tables`): {table id: DataFrame}. With check=True, also the
    check's lines and its failure count, as `codesim tables --check` prints them."""
    if only is not None and not isinstance(only, str):
        raise TypeError(f"only: {only!r} is not allowed; a table id")
    text, lines, failures = _codesim.tables(only or "", bool(check))
    frames = Report(json.loads(text)).tables
    return (frames, lines, failures) if check else frames


def sweep(base, grid=None, points=None, jobs=None, log=None):
    """Runs `base` (a scenario path or dict) at every combination of `grid` ({pointer: [values]})
    or at each of `points` ([{pointer: value}]) in `jobs` worker processes (default: the cores);
    a DataFrame, a row per point: point, its inputs, every report row's value by id, error.
    With `log` (a .jsonl or .csv path) every finished point is kept there as it ends, and a
    sweep run again with the same log runs only the points it lacks (Ctrl-C loses none)."""
    import tempfile

    if (grid is None) == (points is None):
        raise TypeError("sweep: give grid={pointer: [values]} or points=[{pointer: value}], one of them")
    if grid is not None and not (isinstance(grid, dict) and all(isinstance(_values(v), list) for v in grid.values())):
        raise TypeError("grid: a dict of JSON pointer to a list of values (a list, tuple or 1-D array)")
    if points is not None and not (isinstance(points, (list, tuple)) and all(isinstance(p, dict) for p in points)):
        raise TypeError("points: a list of dicts of JSON pointer to value")
    jobs = _jobs(jobs)
    if isinstance(base, (str, os.PathLike)):
        base = os.path.abspath(os.fspath(base))
    elif not isinstance(base, dict):
        raise TypeError(f"base: {type(base).__name__} is not allowed; a scenario path or dict")
    document = {"base": base}
    if grid is not None:
        document["grid"] = {k: _values(v) for k, v in grid.items()}
    else:
        document["points"] = [dict(p) for p in points]
    with tempfile.TemporaryDirectory() as scratch:
        path = os.fspath(log) if log is not None else os.path.join(scratch, "sweep.jsonl")
        try:
            text = _json(document)
        except TypeError as error:
            raise TypeError(f"{'grid' if grid is not None else 'points'}: {error}") from None
        rows = json.loads(_codesim.sweep(text, os.getcwd(), path, jobs))
    return _sweep_frame(rows)


def _values(v):
    """A grid's values as a list: a list, a tuple or a 1-D array (NumPy's, or anything with tolist())."""
    if isinstance(v, (list, tuple)):
        return list(v)
    if hasattr(v, "tolist") and not isinstance(v, (str, bytes)):
        v = v.tolist()
        return v if isinstance(v, list) else None
    return None


def _sweep_frame(rows):
    """A row per point: point, its inputs, each metric under its id and unit as `codesim sweep`'s
    CSV names it ("tokens_per_s_M", "memory_total_GB"; frame.attrs["units"] gives each unit), error."""
    records, units = [], {}
    for row in rows:
        metric_units = row.get("units", {})
        metrics = {}
        for metric_id, value in row.get("metrics", {}).items():
            column = _codesim.metric_column(metric_id, metric_units.get(metric_id, ""))
            metrics[column] = value
            units[column] = metric_units.get(metric_id, "")
        record = {"point": row["point"], **row.get("inputs", {}), **metrics}
        record["error"] = row.get("error")
        records.append(record)
    frame = _pandas().DataFrame.from_records(records)
    frame.attrs["units"] = units
    return frame


def _jobs(jobs):
    if jobs is None:
        return os.cpu_count() or 1
    if not isinstance(jobs, int) or isinstance(jobs, bool):
        raise TypeError(f"jobs: {jobs!r} is not allowed; a whole number of worker processes")
    return jobs


def plan(scenario, sets=None, jobs=None, log=None):
    """Every layout of a training-step scenario file (`codesim plan`): a DataFrame a row per
    layout, its inputs and metrics, those that fit in memory first, fastest first; `fits` says
    which fit. Resumable through `log` as sweep() is."""
    import tempfile

    if not isinstance(scenario, (str, os.PathLike)):
        raise TypeError(f"scenario: {type(scenario).__name__} is not allowed; a training-step scenario path")
    if sets is not None and not isinstance(sets, dict):
        raise TypeError(f"sets: {type(sets).__name__} is not allowed; a dict of JSON pointer to value")
    assignments = [_assignment(k, v) for k, v in (sets or {}).items()]
    with tempfile.TemporaryDirectory() as scratch:
        path = os.fspath(log) if log is not None else os.path.join(scratch, "plan.jsonl")
        rows = json.loads(_codesim.plan(os.fspath(scenario), assignments, path, _jobs(jobs)))
    frame = _sweep_frame(rows)
    if "memory_free_GB" in frame.columns:
        frame["fits"] = frame["memory_free_GB"] >= 0
        frame = frame.sort_values(["fits", "tokens_per_s_M", "memory_total_GB"], ascending=[False, False, True], kind="stable")
    return frame.reset_index(drop=True)


def calibrate(trace, device=None, micro_batch_tokens=0.0, communication_sms=-1, out=None):
    """A PyTorch profiler trace read as `codesim calibrate` reads it: (a DataFrame a row per op:
    instances, kernels, busy_ms, span_ms, and kernel time by class; the calibration document a
    training-step scenario takes as "calibration", written to `out` when given)."""
    pandas = _pandas()
    if device is not None and (not isinstance(device, int) or isinstance(device, bool)):
        raise TypeError(f"device: {device!r} is not allowed; a device number")
    document = json.loads(_codesim.calibrate(os.fspath(trace), device, float(micro_batch_tokens), int(communication_sms)))
    rows = [{"op": op["op"], "instances": op["instances"], "kernels": op["kernels"], "busy_ms": op["busy_ms"], "span_ms": op["span_ms"],
             **{f"{name} ms": ms for name, ms in op["class_ms"].items()}} for op in document["ops"]]
    if out is not None:
        pathlib.Path(out).write_text(json.dumps(document["calibration"], indent=2) + "\n")
    return pandas.DataFrame.from_records(rows), document["calibration"]


def schedule(kind, pp, micro_batches, virtual_stages=2):
    """A pipeline schedule's op order per rank (`codesim schedule`): {"kind", "ranks": [[token,
    ...] per rank], "parameter_copies"}; every schedule returned has passed the soundness check."""
    for name, value in (("pp", pp), ("micro_batches", micro_batches), ("virtual_stages", virtual_stages)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{name}: {value!r} is not allowed; a whole number")
    if not isinstance(kind, str):
        raise TypeError(f"kind: {kind!r} is not allowed; a schedule name")
    return _codesim.schedule(kind, pp, micro_batches, virtual_stages)


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _matrix(x, name):
    import numpy

    try:
        m = numpy.asarray(x, dtype=numpy.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: not allowed; a 2-D array of numbers") from None
    if m.ndim != 2:
        raise TypeError(f"{name}: an array of {m.ndim} dimensions is not allowed; a 2-D array")
    return m


class fp8:
    """FP8 numerics on NumPy arrays, the CLI's `codesim fp8` on the same code."""

    @staticmethod
    def cast(values, to, saturate=True):
        """Round-to-nearest-even conversion: (codes as uint32, decoded values as float64), each of
        values' shape. `to`: e4m3, e5m2, e5m6, bf16, fp22, fp32 or ue8m0."""
        import numpy

        return _codesim.fp8_cast(numpy.asarray(values, dtype=numpy.float64), to, bool(saturate))

    @staticmethod
    def quantize(x, format="e4m3", tile=(1, 128), power_of_two_scales=False):
        """Fine-grained quantisation of a 2-D array: (values on the format's grid, one scale per
        tile); x = values x scale tile by tile. Tiles: (1, 128) activations, (128, 128) weights."""
        import numpy

        if not (isinstance(tile, (tuple, list)) and len(tile) == 2 and all(_is_int(t) for t in tile)):
            raise TypeError(f"tile: {tile!r} is not allowed; (rows, columns), two whole numbers")
        return _codesim.fp8_quantize(_matrix(x, "x"), format, tuple(tile), bool(power_of_two_scales))

    @staticmethod
    def gemm(a, b, format="e4m3", accumulator_bits=22, product_fraction_bits=13, group=32, promote_every=128,
             power_of_two_scales=False):
        """A x B^T with A quantised in 1x128 tiles and B in 128x128 blocks, accumulated as Hopper's
        tensor cores do (FP22 by default), promoted to FP32 every `promote_every` K (0: never)."""
        for name, value in (("accumulator_bits", accumulator_bits), ("product_fraction_bits", product_fraction_bits), ("group", group),
                            ("promote_every", promote_every)):
            if not _is_int(value):
                raise TypeError(f"{name}: {value!r} is not allowed; a whole number")
        return _codesim.fp8_gemm(_matrix(a, "a"), _matrix(b, "b"), format, accumulator_bits, product_fraction_bits, group, promote_every,
                                 bool(power_of_two_scales))


def step(scenario, sets=None, engine=None):
    """Where one step's time goes, without the rest of the study: a training-step scenario's step
    (1F, 1B, 1W, 1F1B, bubble, optimizer), or an inference scenario's decode or prefill step at
    its first point (attention, experts, gate, head, dispatch, combine, exposed communication).
    `scenario`: a path, a dict or a loaded Scenario; `sets` as for load() (e.g.
    {"/decode/sequences": [512]}). The rows, as a DataFrame."""
    if not isinstance(scenario, Scenario):
        scenario = load(scenario, sets)
    elif sets:
        raise ValueError("sets: give them to codesim.load, or pass the scenario's path")
    if engine is not None and engine not in ("fluid", "simgrid"):
        raise InputError(f"engine: {engine!r} is unknown; allowed: fluid, simgrid", "engine")
    return Report(json.loads(_codesim.step(scenario._handle, engine or "fluid"))).rows


def add_data(folder):
    """Search `folder` for data files (gpus/, models/, gemm_libraries/, attention_kernels/, ...)
    before the built-in ones; a file of the same name replaces the built-in one. The catalogues
    are read once, at first use: add folders first."""
    _codesim.add_data_dir(os.fspath(folder))


def _catalogue(folder):
    pandas = _pandas()
    records = []
    for path in map(pathlib.Path, _codesim.data_files(folder)):
        record = json.loads(path.read_text())
        record.setdefault("name", path.stem)
        records.append(record)
    return pandas.DataFrame.from_records(records)


def models():
    """The models in data/models, one row each (name, display name, source, published config)."""
    return _catalogue("models")


def gpus():
    """The GPUs in data/gpus, one row each, with their figures and sources."""
    return _catalogue("gpus")


def nodes():
    """The nodes in data/nodes, one row each, with their figures and sources."""
    return _catalogue("nodes")
