#!/usr/bin/env python3
"""Check docs/cluster/prestage-sweep-indexed-job.yaml without a Kubernetes cluster.

1. Parses it with PyYAML (a YAML syntax error fails here) and checks the structure the sweep
   relies on: an Indexed Job whose completions equal PRESTAGE_SHARDS in every container, a
   ReadWriteMany claim mounted where PRESTAGE_OUT_DIR points, the sweep file mounted where
   PRESTAGE_SWEEP_FILE points, the same output directory and shard count in the merge Job,
   and a limit on every Job (activeDeadlineSeconds, backoffLimit) and container (resources).
2. With --run BIN SWEEP_FILE OUT_DIR, runs the containers' own shell scripts locally with
   /bin/sh: the shard script once per JOB_COMPLETION_INDEX 0..N-1, then the merge Job's init
   container and merge container, with PRESTAGE_BIN, PRESTAGE_SWEEP_FILE and PRESTAGE_OUT_DIR
   replaced by the given values. This proves the scripts and the index -> --shard i/N mapping,
   not Kubernetes scheduling.

usage: check-k8s-manifest.py MANIFEST [--run BIN SWEEP_FILE OUT_DIR]
Exit status: 0 ok, 1 a check or a container script failed, 2 bad usage or PyYAML missing.
"""
import os
import subprocess
import sys

try:
    import yaml
except ImportError:
    print("check-k8s-manifest: PyYAML is not importable by " + sys.executable, file=sys.stderr)
    sys.exit(2)

SCRIPT_TIMEOUT_SECONDS = 120
SWEEP_JOB = "prestage-sweep"
MERGE_JOB = "prestage-merge"


class Checker:
    def __init__(self):
        self.errors = []

    def expect(self, condition, where, message):
        if not condition:
            self.errors.append(f"{where}: {message}")
        return condition


def env_of(container):
    return {e["name"]: str(e.get("value", "")) for e in container.get("env") or []}


def mount_covers(container, volume_name, path):
    """True if `volume_name` is mounted in `container` at a directory containing `path`."""
    for m in container.get("volumeMounts") or []:
        mp = m.get("mountPath", "").rstrip("/")
        if m.get("name") == volume_name and (path == mp or path.startswith(mp + "/")):
            return True
    return False


def check(docs, c):
    by_kind_name = {}
    for i, d in enumerate(docs):
        if not c.expect(isinstance(d, dict) and "kind" in d and "metadata" in d,
                        f"document {i}", "expected a Kubernetes object with kind and metadata"):
            continue
        by_kind_name[(d["kind"], d["metadata"].get("name"))] = d

    pvcs = [d for (k, _), d in by_kind_name.items() if k == "PersistentVolumeClaim"]
    sweep = by_kind_name.get(("Job", SWEEP_JOB))
    merge = by_kind_name.get(("Job", MERGE_JOB))
    c.expect(len(pvcs) == 1, "manifest", f"expected 1 PersistentVolumeClaim, found {len(pvcs)}")
    c.expect(sweep is not None, "manifest", f"expected a Job named {SWEEP_JOB}")
    c.expect(merge is not None, "manifest", f"expected a Job named {MERGE_JOB}")
    if len(pvcs) != 1 or sweep is None or merge is None:
        return None
    pvc = pvcs[0]
    claim = pvc["metadata"]["name"]
    c.expect("ReadWriteMany" in (pvc["spec"].get("accessModes") or []), f"PersistentVolumeClaim {claim}",
             "accessModes must include ReadWriteMany (shard pods on several nodes write at once)")

    for job in (sweep, merge):
        name = job["metadata"]["name"]
        spec = job["spec"]
        for key in ("activeDeadlineSeconds", "backoffLimit"):
            c.expect(isinstance(spec.get(key), int) and spec[key] >= 0, f"Job {name} spec.{key}",
                     f"expected a non-negative integer, found {spec.get(key)!r}")
        pod = spec["template"]["spec"]
        c.expect(pod.get("restartPolicy") in ("Never", "OnFailure"), f"Job {name} restartPolicy",
                 f"expected Never or OnFailure, found {pod.get('restartPolicy')!r}")
        claims = {v["name"]: v["persistentVolumeClaim"]["claimName"]
                  for v in pod.get("volumes") or [] if "persistentVolumeClaim" in v}
        c.expect(claims.get("data") == claim, f"Job {name} volumes",
                 f"expected volume 'data' bound to claim {claim}, found {claims}")
        for ct in (pod.get("initContainers") or []) + pod["containers"]:
            where = f"Job {name} container {ct.get('name')}"
            env = env_of(ct)
            c.expect(bool(ct.get("image")), where, "expected an image")
            c.expect(ct.get("command") == ["/bin/sh", "-c"] and len(ct.get("args") or []) == 1, where,
                     "expected command [/bin/sh, -c] and one script in args")
            c.expect(env.get("PRESTAGE_SHARDS") == str(sweep["spec"].get("completions")), where,
                     f"PRESTAGE_SHARDS={env.get('PRESTAGE_SHARDS')!r} must equal {SWEEP_JOB} "
                     f"spec.completions={sweep['spec'].get('completions')!r}")
            out_dir = env.get("PRESTAGE_OUT_DIR", "")
            c.expect(mount_covers(ct, "data", out_dir), where,
                     f"PRESTAGE_OUT_DIR={out_dir!r} is not inside the mounted volume 'data'")
            if "PRESTAGE_SWEEP_FILE" in env or ct is pod["containers"][0] and job is sweep:
                c.expect(mount_covers(ct, "sweep-file", env.get("PRESTAGE_SWEEP_FILE", "")), where,
                         f"PRESTAGE_SWEEP_FILE={env.get('PRESTAGE_SWEEP_FILE')!r} is not inside the "
                         "mounted volume 'sweep-file'")
            limits = (ct.get("resources") or {}).get("limits") or {}
            c.expect("cpu" in limits and "memory" in limits, where, "expected cpu and memory limits")

    s = sweep["spec"]
    n = s.get("completions")
    c.expect(s.get("completionMode") == "Indexed", f"Job {SWEEP_JOB}", "expected completionMode: Indexed")
    c.expect(isinstance(n, int) and n >= 1, f"Job {SWEEP_JOB} completions",
             f"expected an integer >= 1, found {n!r}")
    p = s.get("parallelism")
    c.expect(isinstance(p, int) and isinstance(n, int) and 1 <= p <= n, f"Job {SWEEP_JOB} parallelism",
             f"expected an integer in 1...completions ({n!r}), found {p!r}")
    shard_ct = s["template"]["spec"]["containers"]
    c.expect(len(shard_ct) == 1, f"Job {SWEEP_JOB}", f"expected 1 container, found {len(shard_ct)}")
    script = shard_ct[0]["args"][0]
    c.expect("$JOB_COMPLETION_INDEX" in script and "--shard" in script, f"Job {SWEEP_JOB} script",
             "expected it to pass $JOB_COMPLETION_INDEX as --shard i/N")
    m = merge["spec"]
    c.expect(m.get("completions", 1) == 1 and m.get("completionMode", "NonIndexed") == "NonIndexed",
             f"Job {MERGE_JOB}", "expected a single non-indexed completion")
    outs = {env_of(ct).get("PRESTAGE_OUT_DIR")
            for job in (sweep, merge)
            for ct in (job["spec"]["template"]["spec"].get("initContainers") or [])
            + job["spec"]["template"]["spec"]["containers"]}
    c.expect(len(outs) == 1, "manifest", f"expected one PRESTAGE_OUT_DIR in every container, found {sorted(map(str, outs))}")
    return sweep, merge


def run_script(container, overrides, extra_env, label):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}
    env.update(env_of(container))
    env.update({k: v for k, v in overrides.items() if k in env})
    env.update(extra_env)
    try:
        r = subprocess.run(["/bin/sh", "-c", container["args"][0]], env=env, capture_output=True, text=True,
                           timeout=SCRIPT_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        print(f"check-k8s-manifest: {label}: timed out after {SCRIPT_TIMEOUT_SECONDS}s", file=sys.stderr)
        return False
    if r.returncode != 0:
        print(f"check-k8s-manifest: {label}: exit status {r.returncode}\n--- stdout\n{r.stdout}--- stderr\n{r.stderr}",
              file=sys.stderr)
        return False
    return True


def main(argv):
    if len(argv) not in (2, 6) or (len(argv) == 6 and argv[2] != "--run"):
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        try:
            docs = [d for d in yaml.safe_load_all(f) if d is not None]
        except yaml.YAMLError as e:
            print(f"check-k8s-manifest: {argv[1]}: YAML syntax error: {e}", file=sys.stderr)
            return 1
    c = Checker()
    try:
        jobs = check(docs, c)
    except (KeyError, TypeError, IndexError, AttributeError) as e:
        c.errors.append(f"manifest: missing or mistyped field ({type(e).__name__}: {e})")
        jobs = None
    if c.errors or jobs is None:
        for e in c.errors:
            print(f"check-k8s-manifest: {argv[1]}: {e}", file=sys.stderr)
        return 1
    sweep, merge = jobs
    n = sweep["spec"]["completions"]
    print(f"check-k8s-manifest: {argv[1]}: {len(docs)} objects, Indexed Job with {n} shards: structure ok")
    if len(argv) == 2:
        return 0

    overrides = {"PRESTAGE_BIN": argv[3], "PRESTAGE_SWEEP_FILE": argv[4], "PRESTAGE_OUT_DIR": argv[5]}
    shard = sweep["spec"]["template"]["spec"]["containers"][0]
    for i in range(n):
        if not run_script(shard, overrides, {"JOB_COMPLETION_INDEX": str(i)}, f"shard pod {i}"):
            return 1
    mpod = merge["spec"]["template"]["spec"]
    for ct in (mpod.get("initContainers") or []) + mpod["containers"]:
        if not run_script(ct, overrides, {}, f"merge pod container {ct['name']}"):
            return 1
    print(f"check-k8s-manifest: ran the {n} shard scripts and the merge scripts locally into {argv[5]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
