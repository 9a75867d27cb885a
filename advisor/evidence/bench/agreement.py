"""The numerical-agreement check: each framework's MLP step against the NumPy float64 reference."""

from __future__ import annotations

import math

from advisor.evidence.bench.presets import NUMPY
from advisor.evidence.bench.results import BenchWarning, BenchWarningCode, Measurement
from advisor.evidence.bench.runner import _Run


def _compare_agreement(run: _Run, tol: float) -> None:
    """Compare every framework's agreement step with the NumPy float64 reference; a mismatch is a failure."""
    if not run.agreement:
        return
    ref = run.agreement.get((NUMPY, "cpu"))
    ref_name = "numpy float64"
    if ref is None:
        first = next(iter(sorted(run.agreement)))
        ref, ref_name = run.agreement[first], f"{first[0]} on {first[1]} (NumPy reference missing)"
    for (framework, device), got in sorted(run.agreement.items()):
        if got is ref:
            continue
        try:
            loss_err = abs(got["loss"] - ref["loss"]) / max(abs(ref["loss"]), 1e-12)
            grad_errs = {}
            for name, g_ref in ref["grads"].items():
                g = got["grads"][name]
                if len(g) != len(g_ref):
                    raise ValueError(f"gradient {name} has {len(g)} values, expected {len(g_ref)}")
                scale = max(max(abs(v) for v in g_ref), 1e-12)
                grad_errs[name] = max(abs(a - b) for a, b in zip(g, g_ref, strict=True)) / scale
            upd_errs = {k: abs(got["updated_norms"][k] - v) / max(abs(v), 1e-12)
                        for k, v in ref["updated_norms"].items()}
        except (KeyError, TypeError, ValueError) as exc:
            run.fail(framework, "agreement", device, "bad_output", f"cannot compare: {exc!r}")
            continue
        worst = max([loss_err, *grad_errs.values(), *upd_errs.values()])
        passed = math.isfinite(worst) and worst <= tol
        message = f"disagrees with {ref_name}: max relative error {worst:.2e} > {tol:g}"
        params = {"reference": ref_name, "error": worst, "tolerance": tol}
        warnings = () if passed else (BenchWarning(BenchWarningCode.DISAGREES, message, params),)
        run.add(Measurement(
            framework=framework, device=device, benchmark="agreement", variant="mlp-step-vs-reference",
            metric="error", value=worst, unit="rel. error", higher_is_better=False,
            params={"reference": ref_name, "tolerance": tol, "passed": passed, "loss": got["loss"],
                    "reference_loss": ref["loss"], "loss_rel_err": loss_err, "grad_max_rel_err": grad_errs,
                    "updated_norm_rel_err": upd_errs, "dtype": got.get("dtype")},
            samples=1, warnings=warnings, environment=run.envs.get(framework, {}),
        ))
        if not passed:
            run.fail(framework, "agreement", device, "mismatch", message)
