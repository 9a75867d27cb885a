"""The Verify, Concepts, Pitfalls, Tooling and First tasks sections, from the knowledge base."""

from __future__ import annotations

import re
from collections.abc import Sequence

from advisor.checklist.machine import DEVICE_NOUNS
from advisor.checklist.model import Item, _links, _sources
from advisor.knowledge.base import KnowledgeBase
from advisor.knowledge.schema import Framework, Hardware


def verify_command(framework: str) -> str:
    """The `fwadvisor` command that checks again that the framework works on this machine."""
    from advisor.frameworks.registry import adapters

    # `probe --framework` needs an adapter; a framework without one is still covered by a full probe.
    return f"fwadvisor probe --framework {framework}" if framework in adapters() else "fwadvisor probe"


def _verify_section(kb: KnowledgeBase, fw: Framework, backend: Hardware, warnings: list[str]) -> tuple[Item, ...]:
    items: list[Item] = []
    onboarding = kb.onboarding.get(fw.id)
    device = DEVICE_NOUNS[backend]
    if onboarding is not None:
        items.append(
            Item(
                f"verify.snippet.{fw.id}",
                f"Prove {fw.name} computes on the {device}",
                "Save as `verify.py` and run `python verify.py` in the environment you installed into.",
                code=onboarding.verify.rstrip(),
                code_lang="python",
                done_when=f"it runs to the end without an error and names the {device} device.",
            )
        )
    else:
        warnings.append(f"the knowledge base has no verification snippet for {fw.name}")
    items.append(
        Item(
            f"verify.command.{fw.id}",
            "Let fwadvisor check it again",
            f"Re-probes this machine in a child process: imports {fw.name}, lists the devices it sees and runs a "
            "small computation.",
            code=verify_command(fw.id),
            code_lang="bash",
            done_when=f"it reports {fw.name} as installed and working"
            + (f" with the {device} visible." if backend != Hardware.CPU else "."),
        )
    )
    return tuple(items)


def _concepts_section(kb: KnowledgeBase, fw: Framework, src: Framework | None, warnings: list[str]) -> tuple[Item, ...]:
    items: list[Item] = []
    if src is not None:
        migration = kb.migrations.get((src.id, fw.id))
        if migration is not None:
            items.append(
                Item(
                    f"migration.{src.id}.{fw.id}",
                    f"Read why moving from {src.name} to {fw.name} costs what it does ({migration.cost.value})",
                    "\n".join(f"- {d}" for d in migration.drivers),
                    links=_links(migration.tools) + _sources(migration.sources),
                )
            )
        rows = kb.concept_mapping(src.id, fw.id)
        for concept, old, new in rows:
            old_none, old_why = _no_counterpart(old)
            new_none, new_why = _no_counterpart(new)
            detail = [concept.note] if concept.note else []
            if old_none and new_none:
                title = f"{concept.name}: neither framework has a built-in counterpart"
                detail[:0] = [f"{src.name}: {old_why or 'none'}.", f"{fw.name}: {new_why or 'none'}."]
            elif new_none:
                title = f"{concept.name}: `{old}` has no direct counterpart in {fw.name}"
                if new_why:
                    detail.insert(0, f"In {fw.name}: {new_why}.")
            elif old_none:
                title = f"{concept.name}: learn `{new}` (nothing like it in {src.name})"
                if old_why:
                    detail.insert(0, f"In {src.name}: {old_why}.")
            else:
                title = f"{concept.name}: unlearn `{old}`, learn `{new}`"
            items.append(Item(f"concept.{concept.id}", title, "\n".join(detail)))
        if not rows:
            warnings.append(f"the knowledge base maps no concepts between {src.name} and {fw.name}")
    else:
        for concept in kb.concepts.values():
            term = concept.terms.get(fw.id)
            if term and not _no_counterpart(term)[0]:
                items.append(Item(f"concept.{concept.id}", f"{concept.name}: learn `{term}`", concept.note or ""))
    return tuple(items)


def _no_counterpart(term: str) -> tuple[bool, str]:
    """Whether a concept term says "no counterpart" ("-", or "- (why)"), and the why."""
    m = re.fullmatch(r"\s*-\s*(?:\((.*)\))?\s*", term, re.DOTALL)
    return (True, (m.group(1) or "").strip()) if m else (False, "")


def _pitfalls_section(kb: KnowledgeBase, fw: Framework) -> tuple[Item, ...]:
    onboarding = kb.onboarding.get(fw.id)
    if onboarding is None:
        return ()
    return tuple(
        Item(
            f"pitfall.{fw.id}.{p.id}",
            p.title,
            f"{p.detail}\nInstead: {p.instead}",
            links=_sources(p.sources),
        )
        for p in onboarding.pitfalls
    )


def _tooling_section(kb: KnowledgeBase, fw: Framework, targets: Sequence[str]) -> tuple[Item, ...]:
    items: list[Item] = []
    onboarding = kb.onboarding.get(fw.id)
    if onboarding is not None:
        for area, links in onboarding.tooling.items():
            names = ", ".join(link.name for link in links) or "nothing listed"
            items.append(
                Item(
                    f"tooling.{fw.id}.{area}",
                    f"{area.replace('_', ' ').capitalize()}: try {names}",
                    links=_links(links),
                )
            )
    for target in targets:
        name = kb.targets[target].name
        route = kb.route(fw.id, target)
        if route is None:
            items.append(
                Item(
                    f"deploy.{fw.id}.{target}",
                    f"Deploy to {name}: no route known",
                    f"The knowledge base lists no route from {fw.name} to {name}; plan this early.",
                    warning=True,
                )
            )
            continue
        detail = [f"Route: {' '.join(route.route.split())}", f"Status: {route.status.value} (as of {route.as_of})."]
        if route.tier is not None:
            # Who ships the last step onto the target: a vendor converter is outside the framework's releases.
            by = f" ({route.tier.by})" if route.tier.by else ""
            detail.append(f"Tier: {route.tier.tier.value}{by}.")
        if route.notes:
            detail.append(route.notes)
        items.append(
            Item(
                f"deploy.{fw.id}.{target}",
                f"Plan the route to {name}",
                "\n".join(detail),
                links=_sources(route.sources),
                warning=not route.status.usable,
            )
        )
    has_deploy_tooling = onboarding is not None and any("deploy" in area for area in onboarding.tooling)
    if not targets and fw.export and not has_deploy_tooling:
        items.append(
            Item(
                f"deploy.{fw.id}.export",
                f"Know the export routes: {', '.join(e.name for e in fw.export)}",
                "Pass `--target` to see the route for your deployment targets.",
                links=_links(fw.export),
            )
        )
    return tuple(items)


#: Concept ids whose term in the chosen framework shows what one training step looks like (first found wins).
_STEP_CONCEPTS = ("train_step",)


def _term(kb: KnowledgeBase, concept_id: str, framework: str) -> str | None:
    concept = kb.concepts.get(concept_id)
    term = concept.terms.get(framework) if concept is not None else None
    return term if term and not _no_counterpart(term)[0] else None


def _tasks_section(
    kb: KnowledgeBase, fw: Framework, src: Framework | None, backend: Hardware, targets: Sequence[str]
) -> tuple[Item, ...]:
    device = DEVICE_NOUNS[backend]
    if src is not None:
        port = Item(
            "task.port_layer",
            f"Port one layer from your {src.name} code to {fw.name}",
            f"Pick a small layer (a linear layer with its activation), copy its weights into the {fw.name} "
            "version and feed both the same input.",
            done_when=f"the {fw.name} layer's output matches the {src.name} layer's within 1e-5 on the same input.",
        )
    else:
        port = Item(
            "task.port_layer",
            f"Write one layer in {fw.name}",
            "A linear layer with an activation, initialised from a fixed seed.",
            done_when="a forward pass on a random batch returns the expected shape and only finite values.",
        )
    idiom = [f"{fw.name}'s idiom: `{term}`." for term in (_term(kb, cid, fw.id) for cid in _STEP_CONCEPTS) if term]
    step = Item(
        "task.train_step",
        f"Write one training step in {fw.name}",
        "\n".join(["Forward pass, loss, gradients and an optimiser update, compiled the idiomatic way.", *idiom]),
        done_when=f"the loss falls over 20 steps on one fixed batch, running on the {device}.",
    )
    route = next(((t, kb.route(fw.id, t)) for t in targets if kb.route(fw.id, t) is not None), None)
    if route is not None:
        target, r = route
        assert r is not None
        export = Item(
            "task.export",
            f"Export the model for {kb.targets[target].name}",
            f"Use the model from the training step. Route: {' '.join(r.route.split())}",
            done_when="the exported model loads in the target runtime and its outputs match "
            f"{fw.name}'s within 1e-4 on the same input.",
            links=_sources(r.sources),
        )
    else:
        # The knowledge base lists the current route first; later entries may be legacy or deprecated.
        first = fw.export[:1]
        how = f"with {first[0].name}" if first else "with the framework's own save/export API"
        export = Item(
            "task.export",
            f"Export the trained model {how}",
            "Use the model from the training step. Pass `--target` for the route to your deployment target.",
            done_when="the exported model loads in a fresh process and gives the same outputs within 1e-4.",
            links=_links(first),
        )
    return port, step, export
