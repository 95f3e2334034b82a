"""verify(): a run's outputs against the references: bit-exact against the integer reference
(int8 builds), and top-1 agreement / SNR against the float model (onnxruntime on the user's own
file for a model compiled from an .onnx path; else on our export where it can run the model,
our numpy float reference otherwise)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from npusim.flow.errors import FlowError
from npusim.flow.inputs import device_inputs as host_inputs

FP16_SNR_DB = 30.0  # fp16 runs are "verified" when this close to the float model


@dataclass(frozen=True)
class Verification:
    """The verdict: `verified` is bit_exact for int8 builds, snr_db >= FP16_SNR_DB for fp16."""

    verified: bool
    bit_exact: bool | None      # None: fp16 (no integer reference)
    snr_db: float               # the worst output's, against the float reference
    top1_agree: float           # the worst output's, against the float reference
    reference: str              # which float reference ran: 'onnxruntime on <file>' (the
    #                             user's .onnx), 'onnxruntime' (our export) or our numpy one

    def as_dict(self) -> dict:
        return asdict(self)


def verify(compiled, outputs, feeds: dict | None = None,
           device_inputs: dict | None = None) -> Verification:
    """Check `outputs` of `compiled`: a Result from simulate() (its feeds and device inputs are
    used; the verdict is recorded on it, result.verification), or the device outputs
    {artifact output: array} of a run on float `feeds` (and, if already made, their
    `device_inputs`)."""
    from npusim.flow.result import Result
    result = outputs if isinstance(outputs, Result) else None
    if result is not None:
        if result.timing_only:
            raise FlowError(f"the run of {result.name} was timing-only: no outputs to verify; "
                            "simulate with timing_only=False")
        outputs, feeds, device_inputs = result.outputs, result.feeds, result.device_inputs
    if not compiled.has_model:
        raise FlowError(f"{compiled.name} has no model to verify against (an artifact "
                        "loaded from disk, or a cpu/gpu build: its evaluate() verifies)")
    if feeds is None:
        raise FlowError("verify() needs the float feeds the outputs were computed from")
    if device_inputs is None:
        device_inputs = host_inputs(compiled, feeds)
    verdict = _check(compiled, feeds, device_inputs, outputs)
    if result is not None:
        result.verification = verdict
    return verdict


def _check(compiled, feeds: dict, dev_in: dict, outputs: dict) -> Verification:
    from compiler.host import HostOutput
    from compiler.verify import verify_run
    specs = [HostOutput.of(e) for e in compiled.artifact.outputs]
    quantized = compiled.quantized
    r = verify_run(compiled.float_graph, specs, feeds, outputs,
                   module=compiled.module if quantized else None,
                   dev_in=dev_in if quantized else None)
    snr = r["snr_db"]
    verified = bool(r["bit_exact"]) if quantized else snr >= FP16_SNR_DB
    return Verification(verified=verified, bit_exact=r["bit_exact"], snr_db=snr,
                        top1_agree=r["top1_agree"], reference=r["reference"])
