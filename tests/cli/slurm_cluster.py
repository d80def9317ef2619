"""A single-node Slurm cluster on localhost for tests and benchmarks: munged, slurmctld and slurmd with a
generated slurm.conf in a temporary folder, on free ports. Everything started is stopped by its PID."""
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel")


def _which(name):
    return shutil.which(name) or next((p for p in (f"/usr/sbin/{name}", f"/usr/bin/{name}")
                                       if os.access(p, os.X_OK)), None)


def missing():
    """Names of the programs the cluster needs that are absent (empty when it can start)."""
    return [d for d in DAEMONS if _which(d) is None]


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, cpus=None):
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="kgo-slurm-"))
        self.cpus = cpus or os.cpu_count() or 2
        self.procs = []
        self.conf = self.dir / "slurm.conf"
        self.env = dict(os.environ, SLURM_CONF=str(self.conf))

    def _start(self, argv, log):
        p = subprocess.Popen(argv, stdout=open(self.dir / log, "w"), stderr=subprocess.STDOUT,
                             env=self.env, start_new_session=True)
        self.procs.append(p)
        return p

    def start(self):
        d = self.dir
        for sub in ("state", "spool", "munge"):
            (d / sub).mkdir()
        os.chmod(d / "munge", 0o700)
        key = d / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        os.chmod(key, 0o400)
        sock = d / "munge" / "munge.socket"
        self._start([_which("munged"), "-F", "-f", f"--key-file={key}", f"--socket={sock}",
                     f"--pid-file={d / 'munge' / 'munged.pid'}", f"--seed-file={d / 'munge' / 'seed'}",
                     f"--log-file={d / 'munge' / 'munged.log'}"], "munged.out")
        self._wait_for(lambda: sock.exists(), "munged socket")
        user = "root" if os.getuid() == 0 else os.environ.get("USER", "nobody")
        host = socket.gethostname()
        self.conf.write_text(f"""ClusterName=kgo-test
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
SlurmUser={user}
SlurmdUser={user}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={sock}
StateSaveLocation={d / 'state'}
SlurmdSpoolDir={d / 'spool'}
SlurmctldPidFile={d / 'slurmctld.pid'}
SlurmdPidFile={d / 'slurmd.pid'}
SlurmctldLogFile={d / 'slurmctld.log'}
SlurmdLogFile={d / 'slurmd.log'}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
MaxArraySize=10001
MinJobAge=5
NodeName={host} NodeAddr=127.0.0.1 CPUs={self.cpus} State=UNKNOWN
PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP
""")
        self._start([_which("slurmctld"), "-D", "-i", "-f", str(self.conf)], "slurmctld.out")
        self._wait_for(lambda: self._sinfo_ok(), "slurmctld")
        self._start([_which("slurmd"), "-D", "-f", str(self.conf)], "slurmd.out")
        self._wait_for(lambda: self._node_idle(), "slurmd (node idle)")
        return self

    def _sinfo_ok(self):
        r = subprocess.run(["sinfo", "-h"], env=self.env, capture_output=True, text=True)
        return r.returncode == 0

    def _node_idle(self):
        r = subprocess.run(["sinfo", "-h", "-o", "%T"], env=self.env, capture_output=True, text=True)
        return r.returncode == 0 and "idle" in r.stdout

    def _wait_for(self, ok, what, timeout=60):
        t0 = time.time()
        while time.time() - t0 < timeout:
            for p in self.procs:
                if p.poll() is not None:
                    raise RuntimeError(f"{p.args[0]} exited ({p.returncode}); logs in {self.dir}: "
                                       + self.logs())
            if ok():
                return
            time.sleep(0.2)
        raise RuntimeError(f"{what} not ready after {timeout} s; logs in {self.dir}: " + self.logs())

    def logs(self):
        text = ""
        for f in sorted(self.dir.glob("*.log")) + sorted(self.dir.glob("*.out")):
            text += f"\n--- {f.name}\n" + f.read_text(errors="replace")[-2000:]
        return text

    def stop(self):
        """Stops every daemon this cluster started, by PID, newest first."""
        for p in reversed(self.procs):
            if p.poll() is None:
                os.kill(p.pid, signal.SIGTERM)
        for p in reversed(self.procs):
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.kill(p.pid, signal.SIGKILL)
                p.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
