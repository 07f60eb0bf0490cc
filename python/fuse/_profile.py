"""InferenceSession.profile's result: each launch's time with its group,
as fuse-run --profile prints them."""

import statistics
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple


@dataclass(frozen=True)
class LaunchProfile:
    """One launch of a plan: a kernel or a library call."""
    launch: int             # its position in the plan
    kind: str               # "kernel", "cublaslt" or "cudnn"
    kernel: str             # the kernel's name, or what the call computes
    math: str               # how it multiplies: "fp32" (kernels), "tf32",
                            # "fp16" or "bf16" (library calls)
    group: Optional[int]    # its fusion group, None when none describes it
    strategy: str           # how the group runs ("kernel rows(32)", ...)
    nodes: Tuple[Tuple[str, str], ...]  # (ONNX node name, op type)
    time_us: float          # median over the iterations
    share: float            # of the launches' total time, 0 to 1
    flops: int              # the group's floating-point operations
    bytes: int              # the fewest bytes it must move
    gflops: float
    gbps: float
    limit_percent: Optional[float]  # % of the device's limit (FLOPs over
                                    # its math's matmul rate, or bytes over
                                    # the copy rate), if measured


class Profile:
    """A plan's launches, in plan order (`launches`); str() gives the table
    of fuse-run --profile, slowest first."""

    def __init__(self, raw, groups):
        self.plan: str = raw["plan"]
        self.device: str = raw["device"]
        self.libraries: str = raw["libraries"]
        #: Median time of the whole plan (ms), timed as fuse-run --bench.
        self.plan_ms: float = statistics.median(raw["plan_times_ms"])
        #: What timing one launch adds, subtracted from each (GPU; ms).
        self.overhead_ms: float = raw["overhead_ms"]
        self.copy_gbps: float = raw["copy_gbps"]
        self.peak_gflops: float = raw["peak_gflops"]
        #: The matmul rate of each math ("fp32", "tf32", "fp16", "bf16";
        #: GFLOP/s, 0 where not measured): a launch's FLOPs are judged
        #: against its math's (LaunchProfile.math).
        self.matmul_gflops: Dict[str, float] = dict(raw["matmul_gflops"])
        medians = [statistics.median(l["times_ms"]) * 1e3
                   for l in raw["launches"]]
        total = sum(medians)
        self.launches: List[LaunchProfile] = []
        for l, us in zip(raw["launches"], medians):
            g = groups[l["group"]] if l["group"] is not None and \
                l["group"] < len(groups) else None
            flops = g["flops"] if g else 0
            nbytes = g["bytes"] if g else 0
            seconds = us * 1e-6
            limit = None
            rate = self.matmul_gflops.get(l["math"], 0.0)
            if g and seconds > 0 and (self.copy_gbps or rate):
                floor = nbytes / (self.copy_gbps * 1e9) \
                    if self.copy_gbps else 0.0
                if rate:
                    floor = max(floor, flops / (rate * 1e9))
                limit = 100.0 * floor / seconds
            self.launches.append(LaunchProfile(
                launch=l["launch"], kind=l["kind"], kernel=l["kernel"],
                math=l["math"],
                group=l["group"] if g else None,
                strategy=g["strategy"] if g else l["kernel"],
                nodes=tuple(g["nodes"]) if g else (),
                time_us=us, share=us / total if total > 0 else 0.0,
                flops=flops, bytes=nbytes,
                gflops=flops / seconds / 1e9 if seconds > 0 else 0.0,
                gbps=nbytes / seconds / 1e9 if seconds > 0 else 0.0,
                limit_percent=limit))

    @property
    def total_ms(self) -> float:
        """The sum of the launches' median times."""
        return sum(l.time_us for l in self.launches) / 1e3

    def __iter__(self):
        return iter(self.launches)

    def __len__(self):
        return len(self.launches)

    def __repr__(self):
        return (f"<fuse.Profile plan '{self.plan}' on {self.device}: "
                f"{len(self)} launches, {self.total_ms:.3f} ms>")

    def __str__(self):
        lines = [f"profile: plan '{self.plan}' on {self.device}: "
                 f"{len(self)} launch{'' if len(self) == 1 else 'es'}"]
        if self.libraries:
            lines.append(f"libraries: {self.libraries}")
        lines.append(f"{'launch':>6} {'group':>5} {'strategy':<40} "
                     f"{'us':>10} {'share':>6} {'GFLOP/s':>9} {'GB/s':>8} "
                     f"{'limit':>6}  nodes")
        for l in sorted(self.launches, key=lambda l: -l.time_us):
            strategy = l.strategy if len(l.strategy) <= 40 \
                else l.strategy[:37] + "..."
            nodes = ", ".join(f"{n} ({op})" for n, op in l.nodes[:3])
            if len(l.nodes) > 3:
                nodes += f" +{len(l.nodes) - 3} more"
            limit = "-" if l.limit_percent is None \
                else f"{l.limit_percent:.1f}%"
            group = "-" if l.group is None else str(l.group)
            lines.append(f"{l.launch:>6} {group:>5} {strategy:<40} "
                         f"{l.time_us:>10.2f} {100 * l.share:>5.1f}% "
                         f"{l.gflops:>9.1f} {l.gbps:>8.1f} {limit:>6}  "
                         f"{nodes or l.kernel}")
        lines.append(f"profile: sum of launches {self.total_ms:.3f} ms, "
                     f"whole plan {self.plan_ms:.3f} ms")
        return "\n".join(lines)
