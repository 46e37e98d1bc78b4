#!/usr/bin/env python3
"""The commands of the README and docs/ still run, and the figures they quote still come out of them.

usage: check_readme.py CODESIM [--slow]

The pages are README.md and every docs/*.md. Every line of their `sh` code blocks that runs
`build/codesim` (or `./build/codesim`) is run as written, with bash, from a scratch copy of the
source root (a folder of links to its files, with `build/codesim` linked to CODESIM), so that the
files the commands write land in the scratch folder; each must exit 0. A code block of `$ build/codesim ...` transcripts runs each command (exit
0, or 2 where it shows a `codesim: ...` error) and finds the lines shown under it in what it prints
(stdout, stderr, then a file it redirects to), in order ("..." skips lines; a line ending in
" ..." is matched up to there). Then each figure in FIGURES, read by a pattern from whichever page
holds it, is held to the output of the command that produces it, rounded as the page rounds it.
Without --slow it also checks that the README links every page of docs/ and that every relative
link of the pages leads to a file, that docs/scenarios.md names every scenario kind and field of
scenarios/schema.json, and (through FIGURES) that docs/models.md gives every model of data/models/.

Commands in SLOW take more than about 20 s. Without --slow (the CTest `readme.commands`) each runs
as the shorter command of the same kind given there (or not at all where none is given), with its
exit code checked, and the figures the pages quote from it are not checked; with --slow (the
CTest `readme.slow`, label "slow", which CI leaves out: run it with `ctest --test-dir build -L slow`)
only they run, as the pages write them, and their figures are checked.

The pages' placeholders get stand-ins: `my-scenario.json` is a copy of a shipped scenario, and
`trace.json` DeepSeek's profile from ../shared (commands on ../shared are skipped where it is not
beside the checkout, as the calibrate tests are).
"""
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))   # the README first

# Commands (as the pages write them) taking more than about 20 s, each with the command that
# stands in for it in the quick run, a shorter one of the same kind (None: none). A stand-in's
# output is not held to the pages' transcripts.
IN_STEP = "build/codesim run scenarios/paper/table4-mpft.json --set /moe/traffic=in-step"
IN_STEP_CALIBRATED = "build/codesim run scenarios/paper/table4-mpft-calibrated.json --set /moe/traffic=in-step"
PLAN = "build/codesim plan scenarios/training/mixtral-8x7b-h100.json"
SMALL_PLAN = "--set /fabric/nodes=2 --set /batch/global_sequences=2"   # 3,996 layouts rather than 84,936
SLOW = {
    "build/codesim tables": "build/codesim tables --only kv-cache",   # `tables --check` below runs them all
    "build/codesim bench": None,
    "build/codesim bench network": None,
    IN_STEP: None,
    IN_STEP_CALIBRATED: None,
    "build/codesim tables --scenarios scenarios/figures --only faults-alltoall-2048": None,   # golden.faults_alltoall_2048
    "build/codesim tables --scenarios scenarios/figures --only network-scale": None,   # golden.network_scale
    "build/codesim bench network-scale": None,
    "build/codesim bench moe --repeat 10": "build/codesim bench moe --repeat 1",
    "build/codesim fp8 train --steps 100": "build/codesim fp8 train --steps 10",
    f"{PLAN} --top 10 --out layouts.csv": f"{PLAN} {SMALL_PLAN} --top 10 --out layouts.csv",
    f"{PLAN} --top 3": f"{PLAN} {SMALL_PLAN} --top 3",
    "build/codesim run scenarios/serving/deepseek-v3-fleet-day.json --series day.csv":
        "build/codesim run scenarios/serving/deepseek-v3-fleet-day.json --set /workload/duration_s=600 --series day.csv",
    "build/codesim serve-plan scenarios/serving/deepseek-v3-fleet-day.json --series plan.csv":
        "build/codesim serve-plan tests/data/serving/day-plan-colocated.json --series plan.csv",
    "build/codesim serve-search sweeps/serve-search-llama-3.1-70b.json --out search.csv":
        "build/codesim serve-search tests/data/serving/search-small.json --out search.csv",
    "build/codesim serve-search sweeps/serve-search-llama-3.1-70b.json --out search.csv --rate 50":
        "build/codesim serve-search tests/data/serving/search-small.json --out search.csv --rate 50",
}

TABLES = "build/codesim tables --check > tables.md"
# The README's three questions.
SERVE_PLAN_50 = "build/codesim serve-plan scenarios/serving/llama-3.1-70b-h100-colocated.json --rate 50"
SMALL_PLAN_TOP_3 = f"{PLAN} {SMALL_PLAN} --top 3"
TPOT_BOUND = "build/codesim tables --only tpot-bound"
# docs/models.md: every model's parameters, as the train-flops study counts them.
MODELS = {path.stem: json.loads(path.read_text())["display_name"] for path in sorted((ROOT / "data/models").glob("*.json"))}
MODEL_PARAMETERS = ("build/codesim run scenarios/paper/train-flops.json --set '/train_flops/models=["
                    + ",".join(f'"{name}"' for name in MODELS) + "]'")
N = r"(?P<%s>[+-]?[\d.,]+)"   # a figure named %s


def row(label, metric, paper=None, ours=None, delta=None):
    """A row of a table as `codesim tables` prints it, its columns named as figures."""
    def cell(name):
        return N % name if name else r"[^|]*"
    return (rf"^\| {re.escape(label)} \| {re.escape(metric)} \| [^|]* \| {cell(paper)} \| {cell(ours)} \| "
            + (N % delta + "%" if delta else ""))


def rows_within(table, label_start):
    """The rows of a table whose label starts so: {rows, misses} (a miss is marked "(miss)")."""
    def count(output):
        section = re.search(rf"^## {table}:.*?(?=^## |\Z)", output, re.MULTILINE | re.DOTALL)
        lines = [l for l in (section.group(0) if section else "").splitlines() if l.startswith(f"| {label_start}")]
        misses = sum("(miss)" in l for l in lines)
        return {"within": len(lines) - misses, "misses": misses}
    return count


def check_totals(output):
    """The check line's figures, and the rows within tolerance other than simulated ones."""
    line = re.search(r"^check: (\d+) rows within tolerance \((\d+) simulated", output, re.MULTILINE)
    return {"simulated": int(line.group(2)), "others": int(line.group(1)) - int(line.group(2))} if line else {}


# Figures the pages quote: (what, page pattern, command, output patterns[, scales]). The page
# pattern (searched in README.md, then each docs/*.md) names the figures; each output pattern (a
# regular expression, or a function of the output giving figures by name) gives the figures of the
# same names, which, times their scale, must round to the page's at the page's precision. The
# command is one of the pages', or, for a figure a page gives for a shipped scenario, the command
# that runs it.
FIGURES = [
    ("kv-cache", rf"exact \({N % 'v3'} / {N % 'qwen'} / {N % 'llama'} KB\); the paper's 7\.28x is {N % 'ratio'}x",
     TABLES, [row("DeepSeek-V3 (MLA)", "KV cache per token", ours="v3"),
              row("Qwen2.5-72B (GQA)", "KV cache per token", ours="qwen"),
              row("LLaMA-3.1-405B (GQA)", "KV cache per token", ours="llama"),
              row("LLaMA-3.1-405B (GQA)", "multiple of DeepSeek-V3", ours="ratio")]),
    ("train-flops", rf"V2 {N % 'v2'} \({N % 'v2d'}%\), V3 {N % 'v3'} \({N % 'v3d'}%\); LLaMA-405B {N % 'llama'}%; "
                    rf"Qwen-72B {N % 'qwen'}%", TABLES,
     [row("DeepSeek-V2", "training GFLOPs per token (causal)", ours="v2", delta="v2d"),
      row("DeepSeek-V3", "training GFLOPs per token (causal)", ours="v3", delta="v3d"),
      row("LLaMA-3.1-405B", "training GFLOPs per token (causal)", delta="llama"),
      row("Qwen2.5-72B", "training GFLOPs per token (causal)", delta="qwen")]),
    ("tpot-bound", rf"{N % 'step'} us / {N % 'layer'} us / {N % 'tpot'} ms / {N % 'speed'} tok/s and "
                   rf"{N % 'nvl_step'} us / {N % 'nvl_tpot'} ms / {N % 'nvl_speed'} tok/s", TABLES,
     [row("IB 50 GB/s: dispatch + combine per EP step (bound)", "time", ours="step"),
      row("IB 50 GB/s: one layer, dual micro-batch overlap (bound)", "time", ours="layer"),
      row("IB 50 GB/s: TPOT, 61 layers (bound)", "time", ours="tpot"),
      row("IB 50 GB/s: output speed per user (bound)", "rate", ours="speed"),
      row("GB200 NVL72 900 GB/s: dispatch + combine per EP step (bound)", "time", ours="nvl_step"),
      row("GB200 NVL72 900 GB/s: TPOT, 61 layers (bound)", "time", ours="nvl_tpot"),
      row("GB200 NVL72 900 GB/s: output speed per user (bound)", "rate", ours="nvl_speed")]),
    ("fp8", rf"{N % 'bare'}% of output RMS at K = 4096 without promotion, {N % 'promoted'}% with it", TABLES,
     [row("K = 4096, no promotion", "max error / output RMS", ours="bare"),
      row("K = 4096, promoted every 128", "max error / output RMS", ours="promoted")]),
    ("Table 4", rf"in one run: {N % 'ours'} s/step against {N % 'paper'} \({N % 'delta'}%\)", TABLES,
     [row("MPFT: DeepSeek-V3", "time/step", paper="paper", ours="ours", delta="delta")]),
    ("Table 4, calibrated", rf"each op from its first kernel to its last\): {N % 'ours'} s \({N % 'delta'}%\)", TABLES,
     [row("MPFT, calibrated: DeepSeek-V3", "time/step", ours="ours", delta="delta")]),
    ("Table 4, in-step", rf"`--set /moe/traffic=in-step`, 19 s and 3\.9 GB\): {N % 'ours'} s", IN_STEP,
     [row("MPFT with /moe/traffic=in-step: DeepSeek-V3", "time/step", ours="ours")]),
    ("Table 4, in-step, calibrated", rf"`--set /moe/traffic=in-step`, 19 s and 3\.9 GB\): [\d.]+ s, calibrated "
                                     rf"{N % 'ours'} s \({N % 'delta'}%\)", IN_STEP_CALIBRATED,
     [row("MPFT, calibrated with /moe/traffic=in-step: DeepSeek-V3", "time/step", ours="ours", delta="delta")]),
    ("inference", rf"{N % 'tpot'} ms TPOT at 2560 sequences x 4K context.*?links at their full rate as the paper "
                  rf"assumes\) {N % 'limit'} ms against 14\.76.*?MTP {N % 'mtp_low'}-{N % 'mtp_high'}x against 1\.8x.*?"
                  rf"prefill on 32 GPUs {N % 'prefill'}K tokens/s per GPU", TABLES,
     [row("decode: 2560 sequences, context 4096", "TPOT", ours="tpot"),
      row("decode limit: 20480 sequences, context 0", "TPOT", ours="limit"),
      row("decode + MTP: 10240 sequences, context 4096", "MTP: speedup in tokens/s", ours="mtp_low"),
      row("decode + MTP: 2560 sequences, context 4096", "MTP: speedup in tokens/s", ours="mtp_high"),
      row("prefill: 16 prompts x 4096 tokens", "prefill tokens/s per GPU", ours="prefill")], {"prefill": 1e-3}),
    ("routing", rf"ECMP {N % 'ecmp'} GB/s algbw against {N % 'adaptive'} \(at 256 MiB", TABLES,
     [row("all-gather, ecmp, 256 MiB", "algbw", ours="ecmp"), row("all-gather, adaptive, 256 MiB", "algbw", ours="adaptive")]),
    ("latency", rf"cross leaf predicted {N % 'ib'} us IB \(paper 3\.7\) and {N % 'roce'} us RoCE", TABLES,
     [row("InfiniBand", "cross leaf", ours="ib"), row("RoCE", "cross leaf", ours="roce")]),
    ("moe", rf"{N % 'limited'} nodes per token \(limit 4\) against {N % 'free'} unrestricted", TABLES,
     [row("node-limited (M = 4)", "nodes per token", ours="limited"), row("unrestricted top-8", "nodes per token", ours="free")]),
    ("kernels", rf"all 37 rows of its latest table: {N % 'within'} within 15% \(calibration points, basis fit\), "
                rf"{N % 'misses'} known misses", TABLES, [rows_within("kernels", "deepgemm-2025-05:")]),
    ("profile", rf"attn\(F\) {N % 'attn_f'}%, mlp\(F\) {N % 'mlp_f'}%, attn\(B\) {N % 'attn_b'}%, attn\(W\) {N % 'attn_w'}%, "
                rf"mlp\(B\) {N % 'mlp_b'}%, mlp\(W\) {N % 'mlp_w'}%; by kernel class over the six ops \(as `calibrate` classes "
                rf"the profile's kernels\): GEMMs {N % 'gemm'}% \(at the rates of the internal kernels the profile ran\), "
                rf"attention {N % 'attention'}%, memory-bound kernels {N % 'memory'}%.*?: {N % 'pair'} ms against the "
                rf"profile's {N % 'profiled'} \({N % 'pair_delta'}%\)", TABLES,
     [row("DeepSeek-V3: MoE layer of stage 8", f"{op} (compute)", delta=name) for op, name in
      [("attn(F)", "attn_f"), ("mlp(F)", "mlp_f"), ("attn(B)", "attn_b"), ("attn(W)", "attn_w"), ("mlp(B)", "mlp_b"),
       ("mlp(W)", "mlp_w")]]
     + [row("DeepSeek-V3: MoE layer of stage 8", f"{kind} kernels, six compute ops", delta=name) for kind, name in
        [("GEMM", "gemm"), ("attention", "attention"), ("memory-bound", "memory")]]
     + [row("DeepSeek-V3, every op as profiled: stage 8 (4 MoE layers)", "F&B pair, overlapped", paper="profiled",
            ours="pair", delta="pair_delta")]),
    ("serve-plan", rf"at 1,000 req/s, {N % 'prefill'} prefill and {N % 'decode'} decode units, TTFT p90\s+{N % 'ttft'} s",
     "build/codesim serve-plan scenarios/serving/deepseek-v3-production.json --rate 1000",
     [rf"\| for 1000 req/s: prefill units \| units \| [^|]* \| {N % 'prefill'} \|",
      rf"\| for 1000 req/s: decode units \| units \| [^|]* \| {N % 'decode'} \|",
      rf"\| for 1000 req/s: TTFT p90, all units simulated together \| s \| [^|]* \| {N % 'ttft'} \|"]),
    ("day plan", rf"up to {N % 'prefill'} requests/s\s+and one decode unit {N % 'decode'}, so the peak needs {N % 'peak'} prefill units where the policy "
                 rf"allows 22\. Held to\s+the policy's 22, the plan uses {N % 'hours'} node-hours \({N % 'mean'} nodes on average, {N % 'fewest'} to "
                 rf"{N % 'most'}\) against {N % 'fixed'} for\s+{N % 'most_again'} nodes all day; keeping the SLO all day takes {N % 'keep'} node-hours, "
                 rf"{N % 'keep_peak'} nodes at the peak",
     "build/codesim serve-plan scenarios/serving/deepseek-v3-fleet-day.json --series plan.csv",
     [rf"\| one prefill unit: requests/s within the TTFT SLO \(decode unlimited\) \| req/s \| [^|]* \| {N % 'prefill'} \|",
      rf"\| one decode unit: requests/s within the SLO \(prefill unlimited\) \| req/s \| [^|]* \| {N % 'decode'} \|",
      rf"\| at the peak \([\d.]+ req/s\): prefill units \| units \| [^|]* \| {N % 'peak'} \|",
      rf"\| node-hours the plan uses \| node-h \| [^|]* \| {N % 'hours'} \|",
      rf"\| nodes in use, mean over the day \| nodes \| [^|]* \| {N % 'mean'} \|",
      rf"\| nodes in use, fewest \| nodes \| [^|]* \| {N % 'fewest'} \|",
      rf"\| nodes in use, most \| nodes \| [^|]* \| {N % 'most'} \|",
      rf"\| node-hours of a fixed fleet sized for the peak \| node-h \| [^|]* \| {N % 'fixed'} \|",
      rf"\| nodes in use, most \| nodes \| [^|]* \| {N % 'most_again'} \|",
      rf"\| node-hours that keep the SLO all day without the policy's max_units \| node-h \| [^|]* \| {N % 'keep'} \|",
      rf"\| nodes that keep the SLO at the peak without the policy's max_units \| nodes \| [^|]* \| {N % 'keep_peak'} \|"]),
    *[(f"training: {name}", rf"\| `{re.escape(name)}` \|[^|\n]*\| {N % 'step'} s(?: \(H800: [\d.]+ s\))?, "
                            rf"{N % 'causal'} / {N % 'full'}(?: \([^)]*\))?, {N % 'memory'} GB",
       f"build/codesim run scenarios/training/{name}.json",
       [rf"^\| [^|]* \| time/step \| s \| [^|]* \| {N % 'step'} \|",
        rf"^\| [^|]* \| TFLOPS \(causal\) \| [^|]* \| [^|]* \| {N % 'causal'} \|",
        rf"^\| [^|]* \| TFLOPS \(non-causal\) \| [^|]* \| [^|]* \| {N % 'full'} \|",
        rf"^\| [^|]* \| memory per GPU \| GB \| [^|]* \| {N % 'memory'} \|"])
      for name in ["llama-3.1-405b-h100", "llama-3.1-405b-h100-long", "gpt-3-175b-a100", "mixtral-8x7b-h100",
                   "qwen3-30b-a3b-h100", "deepseek-v3-h100"]],
    ("training: deepseek-v3-h100 on H800", rf"\| `deepseek-v3-h100` \|[^|\n]*\| [\d.]+ s \(H800: {N % 'step'} s\)", TABLES,
     [row("MPFT: DeepSeek-V3", "time/step", ours="step")]),
    ("check", rf"today\s+\*\*{N % 'simulated'} of the figures our simulation produces are within their tolerance\*\*"
              rf".*?the other {N % 'others'} that pass", TABLES, [check_totals]),
    ("README: serving sizing", rf"One node serves {N % 'unit'} requests/s within it, so 50 need {N % 'units'},.*?"
                               rf"TTFT p90 {N % 'ttft'} s, TPOT p90 {N % 'tpot'} ms", SERVE_PLAN_50,
     [rf"\| one unit: requests/s within the SLO \| req/s \| [^|]* \| {N % 'unit'} \|",
      rf"\| for 50 req/s: nodes \| nodes \| [^|]* \| {N % 'units'} \|",
      rf"\| for 50 req/s: TTFT p90, all units simulated together \| s \| [^|]* \| {N % 'ttft'} \|",
      rf"\| for 50 req/s: TPOT p90, all units simulated together \| ms \| [^|]* \| {N % 'tpot'} \|"]),
    ("README: training layout", rf"TP {N % 'tp'}, CP {N % 'cp'}, PP {N % 'pp'} interleaved over {N % 'vpp'} virtual stages, "
                                rf"EP {N % 'ep'} and\s+ZeRO-{N % 'zero'} take {N % 'step'} s a step at\s+{N % 'tflops'} TFLOPS per GPU, "
                                rf"in {N % 'memory'} GB", SMALL_PLAN_TOP_3,
     [rf"^\| 1 \| {N % 'tp'} \| {N % 'cp'} \| {N % 'pp'} \| {N % 'vpp'} \| 1 \| {N % 'ep'} \| 1 \| 1 \| interleaved \| none \| "
      rf"{N % 'zero'} \| {N % 'step'} \| [\d.]+ \| {N % 'tflops'} \| [\d.]+ \| {N % 'memory'} \|"]),
    ("README: decode bound", rf"The bound comes out at\s+{N % 'tpot'} ms \({N % 'speed'} tokens/s\), and the decode step flow-simulated "
                             rf"over the same links, with their\s+latency, at {N % 'flow'} ms", TPOT_BOUND,
     [row("IB 50 GB/s: TPOT, 61 layers (bound)", "time", ours="tpot"),
      row("IB 50 GB/s: output speed per user (bound)", "rate", ours="speed"),
      row("IB 50 GB/s: TPOT, flow simulation", "time", ours="flow")]),
    *[(f"models: {name}", rf"\| `{re.escape(name)}` \| [^|\n]* \| {N % 'total'} / {N % 'active'} \|", MODEL_PARAMETERS,
       [row(display, "parameters, total", ours="total"), row(display, "parameters, active per token", ours="active")])
      for name, display in MODELS.items()],
]


def readme_commands(text):
    """The README's `build/codesim` command lines and its transcripts, in order:
    (line, expected output lines or None)."""
    commands, block, language = [], None, None
    for raw in text.splitlines():
        line = raw.strip()
        if block is None:
            if line.startswith("```"):
                block, language = [], line[3:].strip()
            continue
        if not line.startswith("```"):
            block.append(line)
            continue
        if language == "sh":
            for command in block:
                command = re.sub(r"\s{2,}#.*$", "", command).strip()   # the comment after a command
                for part in command.split(" && "):
                    if re.match(r"(\./)?build/codesim\b", part):
                        commands.append((part.removeprefix("./"), None))
        elif language == "" and block and block[0].startswith("$ build/codesim"):
            for line_ in block:
                if line_.startswith("$ "):
                    commands.append((line_[2:], []))
                else:
                    commands[-1][1].append(line_)
        block = None
    return commands


def check_pages(pages):
    """The README links every page of docs/, every relative link leads to a file, and
    docs/scenarios.md names every scenario kind and every field of scenarios/schema.json."""
    problems = []
    for name in pages:
        if name != "README.md" and f"]({name})" not in pages["README.md"]:
            problems.append(f"README.md does not link {name}")
    for name, text in pages.items():
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            if not ((ROOT / name).parent / target.split("#")[0]).exists():
                problems.append(f"{name} links {target}, which is not there")
    scenarios = pages.get("docs/scenarios.md", "")
    schema = json.loads((ROOT / "scenarios/schema.json").read_text())
    for kind in schema["properties"]["kind"]["enum"]:
        if not re.search(rf"^\|[^|\n]*`{re.escape(kind)}`[^|\n]*\|", scenarios, re.MULTILINE):
            problems.append(f"docs/scenarios.md has no row for the kind `{kind}`")
    fields = set()

    def collect(node):
        if isinstance(node, dict):
            fields.update(node.get("properties", {}))
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)
    collect(schema)
    spans = " ".join(re.findall(r"`([^`]+)`", scenarios))
    for field in sorted(fields):
        if not re.search(rf"(?<!\w){re.escape(field)}(?!\w)", spans):
            problems.append(f"docs/scenarios.md does not name the field `{field}` of scenarios/schema.json")
    return problems


def number(text):
    return float(text.replace(",", "").replace("\u2212", "-"))


def decimals(text):
    return len(text.split(".")[1]) if "." in text else 0


def find_lines(expected, output):
    """The expected lines appear in the output in order; "..." skips any lines."""
    lines = output.splitlines()
    at = 0
    for want in expected:
        if want == "...":
            continue
        prefix = want.endswith(" ...")
        want = want[:-4] if prefix else want
        while at < len(lines) and not (lines[at].strip().startswith(want) if prefix else lines[at].strip() == want):
            at += 1
        if at == len(lines):
            return f"the page shows '{want}', which it does not print (in this order)"
        at += 1
    return None


def sandbox(scratch, codesim):
    """A folder of links to the source root's files, where the commands run and write."""
    work = scratch / "src"
    work.mkdir()
    for entry in ROOT.iterdir():
        if entry.name != ".git" and not entry.name.startswith("build"):
            (work / entry.name).symlink_to(entry)
    (work / "build").mkdir()
    (work / "build" / "codesim").symlink_to(codesim)
    if (Path(codesim).parent / "python").is_dir():
        (work / "build" / "python").symlink_to(Path(codesim).parent / "python")
    shutil.copy(ROOT / "scenarios/paper/tpot-ib.json", work / "my-scenario.json")
    if SHARED.is_dir():
        (scratch / "shared").symlink_to(SHARED)
        (work / "trace.json").symlink_to(SHARED / "profile-data/train.json")
    return work


def slow_entry(command):
    """Whether a command is slow, and how the quick run shortens it (None: it is not run)."""
    return command in SLOW, SLOW.get(command)


def run(command, work):
    started = time.monotonic()
    result = subprocess.run(["bash", "-c", command], cwd=work, capture_output=True, text=True, timeout=1200)
    output = result.stdout + result.stderr
    redirect = re.search(r">\s*(\S+)\s*$", command)
    if redirect and (work / redirect.group(1)).is_file():
        output += (work / redirect.group(1)).read_text()
    return result.returncode, output, time.monotonic() - started


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    codesim = str(Path(sys.argv[1]).resolve())
    slow_run = "--slow" in sys.argv[2:]
    pages = {page.relative_to(ROOT).as_posix(): page.read_text() for page in PAGES}
    commands = {}   # each once, in order, with every transcript the pages show of it
    for text in pages.values():
        for command, expected in readme_commands(text):
            commands.setdefault(command, [])
            if expected:
                commands[command].append(expected)
    for source in dict.fromkeys(f[2] for f in FIGURES):
        commands.setdefault(source, [])
    failures, outputs = [], {}
    if not slow_run:
        for problem in check_pages(pages):
            print(f"FAIL pages: {problem}")
            failures.append(f"pages: {problem}")
    with tempfile.TemporaryDirectory(prefix="codesim-readme-") as scratch:
        work = sandbox(Path(scratch), codesim)
        for command, transcripts in commands.items():
            slow, shortening = slow_entry(command)
            if slow != slow_run and not (slow and shortening and not slow_run):
                continue
            if ("../shared" in command or "trace.json" in command.split()) and not SHARED.is_dir():
                print(f"skipped (no ../shared beside the checkout): {command}")
                continue
            line = shortening if slow and not slow_run else command
            code, output, seconds = run(line, work)
            # A transcript showing an error expects the exit code of bad input.
            wanted = 2 if any(expected[0].startswith("codesim: ") for expected in transcripts if expected) else 0
            problem = f"exit {code}, expected {wanted}" if code != wanted else next(
                (p for p in (find_lines(expected, output) for expected in transcripts if line == command) if p), None)
            print(f"{'ok  ' if problem is None else 'FAIL'} {seconds:6.1f} s  {line}", flush=True)
            if problem:
                failures.append(f"{line}: {problem}\n{output[-3000:]}")
            if code == wanted and slow == slow_run:
                outputs[command] = output
        for what, readme_pattern, source, output_patterns, *scales in FIGURES:
            if slow_entry(source)[0] != slow_run:
                continue
            if ("../shared" in source or "trace.json" in source.split()) and not SHARED.is_dir():
                continue
            problem = check_figure(pages, readme_pattern, source, output_patterns, scales[0] if scales else {}, outputs)
            print(f"{'ok  ' if problem is None else 'FAIL'} figure: {what}")
            if problem:
                failures.append(f"figure {what}: {problem}")
    for failure in failures:
        print(f"\n{failure}", file=sys.stderr)
    print(f"{len(failures)} failed")
    return 1 if failures else 0


def check_figure(pages, readme_pattern, source, output_patterns, scales, outputs):
    found = ((name, re.search(readme_pattern, text, re.DOTALL)) for name, text in pages.items())
    page, quoted = next(((name, match) for name, match in found if match), (None, None))
    if quoted is None:
        return f"no page (README.md, docs/*.md) says /{readme_pattern}/: update FIGURES in {Path(__file__).name}"
    if source not in outputs:
        return f"'{source}' did not run"
    figures = {}
    for pattern in output_patterns:
        if callable(pattern):
            figures.update(pattern(outputs[source]))
            continue
        printed = re.search(pattern, outputs[source], re.MULTILINE)
        if printed is None:
            return f"'{source}' prints nothing like /{pattern}/"
        figures.update({name: number(text) for name, text in printed.groupdict().items()})
    wrong = []
    for name, text in quoted.groupdict().items():
        if name not in figures:
            return f"no output pattern gives the figure '{name}'"
        ours = figures[name] * scales.get(name, 1)
        if abs(ours - number(text)) > 0.5 * 10 ** -decimals(text) * (1 + 1e-9):
            wrong.append(f"{name}: {page} says {text}, the command gives {ours:.{decimals(text) + 2}f}")
    return "; ".join(wrong) or None


if __name__ == "__main__":
    sys.exit(main())
