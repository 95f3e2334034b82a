"""JUnit XML of a conformance run, for CI systems: one <testcase> per test, classname the test's
group, <failure> with the signature/timing diff, <skipped> with the DUT's reason."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from isa.files import write_atomic


def junit_xml(run) -> str:
    suite = ET.Element("testsuite", name=f"npusim-conformance-{run.dut}",
                       tests=str(len(run.outcomes)),
                       failures=str(run.count("failed")), errors=str(run.count("error")),
                       skipped=str(run.count("skipped")), time=f"{run.wall_s:.3f}")
    for o in run.outcomes:
        group, _, name = o.name.partition("/")
        case = ET.SubElement(suite, "testcase", classname=f"{run.dut}.{group}", name=name or group,
                             time=f"{o.wall_s:.4f}")
        if o.status in ("failed", "error"):
            tag = "failure" if o.status == "failed" else "error"
            el = ET.SubElement(case, tag, message=o.message[:500])
            el.text = "\n".join([w.text() for w in o.words] + o.timing + [o.message])
        elif o.status == "skipped":
            ET.SubElement(case, "skipped", message=o.message)
    root = ET.Element("testsuites")
    root.append(suite)
    return ET.tostring(root, encoding="unicode", xml_declaration=True)


def write_junit(path, run) -> None:
    write_atomic(path, junit_xml(run))
