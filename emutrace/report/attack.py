"""MITRE ATT&CK (Enterprise) techniques for the report's findings: one table, finding -> the
techniques it is evidence of. Where the technique depends on what was seen (which persistence
mechanism, which privileged file), a finding's details choose among the rows of a second table.

A finding with no row has no technique: `network-denied` says only that a connection was
attempted, which no technique describes on its own. Data only; findings.py applies it."""
from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Dict, List, Tuple

# technique id -> its name as ATT&CK spells it (Enterprise, v16)
TECHNIQUES: Dict[str, str] = {
    "T1622": "Debugger Evasion",
    "T1497.003": "Virtualization/Sandbox Evasion: Time Based Evasion",
    "T1053.003": "Scheduled Task/Job: Cron",
    "T1543.002": "Create or Modify System Process: Systemd Service",
    "T1037.004": "Boot or Logon Initialization Scripts: RC Scripts",
    "T1546.004": "Event Triggered Execution: Unix Shell Configuration Modification",
    "T1098.004": "Account Manipulation: SSH Authorized Keys",
    "T1574.006": "Hijack Execution Flow: Dynamic Linker Hijacking",
    "T1547.013": "Boot or Logon Autostart Execution: XDG Autostart Entries",
    "T1546.017": "Event Triggered Execution: Udev Rules",
    "T1620": "Reflective Code Loading",
    "T1027.002": "Obfuscated Files or Information: Software Packing",
    "T1140": "Deobfuscate/Decode Files or Information",
    "T1070.004": "Indicator Removal: File Deletion",
    "T1548": "Abuse Elevation Control Mechanism",
    "T1003.008": "OS Credential Dumping: /etc/passwd and /etc/shadow",
    "T1548.003": "Abuse Elevation Control Mechanism: Sudo and Sudo Caching",
    "T1036": "Masquerading",
    "T1036.004": "Masquerading: Masquerade Task or Service",
}

# finding -> techniques that always apply
BY_FINDING: Dict[str, Tuple[str, ...]] = {
    "ptrace-traceme": ("T1622",),
    "tracerpid-check": ("T1622",),
    "not-dumpable": ("T1622",),
    "timing-check": ("T1497.003", "T1622"),
    "sleep-check": ("T1497.003",),
    "dynamic-code": ("T1620",),
    "unpacked-code": ("T1027.002", "T1140", "T1620"),
    "self-deletion": ("T1070.004",),
    "setid-call": ("T1548",),
    "process-rename": ("T1036.004",),
    "argv0-rewrite": ("T1036",),
}

# finding -> (detail key, value -> techniques): the technique follows what the details say
BY_DETAIL: Dict[str, Tuple[str, Dict[str, Tuple[str, ...]]]] = {
    "persistence": ("mechanism", {
        "cron": ("T1053.003",), "systemd-unit": ("T1543.002",), "rc-file": ("T1037.004",),
        "shell-profile": ("T1546.004",), "authorized-keys": ("T1098.004",), "ld-preload": ("T1574.006",),
        "autostart": ("T1547.013",), "udev-rule": ("T1546.017",),
    }),
    "privileged-file-read": ("path", {
        "/etc/shadow": ("T1003.008",), "/etc/gshadow": ("T1003.008",), "/etc/shadow-": ("T1003.008",),
        "/etc/gshadow-": ("T1003.008",), "/etc/master.passwd": ("T1003.008",),
        "/etc/sudoers": ("T1548.003",), "/etc/sudoers.d/*": ("T1548.003",),
    }),
}


def techniques(name: str, details: List[dict]) -> List[dict]:
    """The ATT&CK techniques of one finding, in table order, each {id, name}."""
    ids: List[str] = list(BY_FINDING.get(name, ()))
    rule = BY_DETAIL.get(name)
    if rule is not None:
        key, table = rule
        for d in details:
            value = str(d.get(key, ""))
            for pattern, found in table.items():
                if fnmatchcase(value, pattern):
                    ids += [t for t in found if t not in ids]
    return [{"id": t, "name": TECHNIQUES[t]} for t in ids]


def url(technique: str) -> str:
    """The technique's page on attack.mitre.org (T1053.003 -> .../techniques/T1053/003/)."""
    return "https://attack.mitre.org/techniques/" + technique.replace(".", "/") + "/"
