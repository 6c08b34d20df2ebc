"""The shared trace-to-plan layer of workloads/runtimes (TRACE.md): a runtime's capture writes
an arena-trace/1; this turns it into an arena-plan/1, plants faults and poses the placement
problem. Standard library only. The stable API:

    validate(raw) -> Trace           raises TraceError (exit 2: what and where)
    export(raw, fault_rule=None, fault_seed=0, fault_kind=None) -> (plan, Trace)
    problem(trace) -> {"csv", "buffers", "rows", "planned_size", "max_live", ...}
    export_placed(raw, ...same...) -> (plan with meta.placement, problem)
    cli.run(argv, prog, description, capture=None, add_arguments=None) -> exit status
"""

from .trace import FORMAT, TraceError, load, validate, digest  # noqa: F401
from .plan import to_plan  # noqa: F401
from .faults import plant  # noqa: F401
from .placement import problem, max_live  # noqa: F401


def export(raw, fault_rule=None, fault_seed=0, fault_kind=None):
    """A raw trace (dict) as (plan, validated Trace); with fault_rule (any|B|C|D) or
    fault_kind (move|inplace|word), one planted fault, its class in plan["meta"]["fault"]."""
    t = validate(raw)
    if fault_rule is None and fault_kind is None:
        return to_plan(t), t
    plan, _ = plant(t, fault_rule or "any", fault_seed, fault_kind)
    return plan, t


def export_placed(raw, fault_rule=None, fault_seed=0, fault_kind=None):
    """export's plan with meta.placement (the problem's planned size, max-live bound, rows,
    buffers and order), and the problem: posed on the trace as captured, before any fault,
    from one validation."""
    t = validate(raw)
    prob = problem(t)
    if fault_rule is None and fault_kind is None:
        plan = to_plan(t)
    else:
        plan, _ = plant(t, fault_rule or "any", fault_seed, fault_kind)
    plan["meta"]["placement"] = {"planned_size": prob["planned_size"],
                                 "max_live": prob["max_live"], "rows": len(prob["rows"]),
                                 "buffers": len(prob["buffers"]), "order": prob["order"]}
    return plan, prob
