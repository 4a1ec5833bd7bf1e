"""The manifests agree with the Dockerfile: every gpumarket container runs as the image's
numeric USER, on a read-only root filesystem with an emptyDir on each path the process
writes (the image's WORKDIR and /tmp), and listens on the ports its settings name (the API on
the image's EXPOSE port, the worker on worker_listen's). Prints what disagrees; exits 1 then.

    python image_matches.py Dockerfile RENDERED.yaml...
"""

import re
import sys

import yaml


def dockerfile_facts(path):
    text = open(path).read()
    final = text[text.rindex("\nFROM ") :]  # the runtime stage
    user = re.findall(r"^USER\s+(\S+)", final, re.M)
    workdir = re.findall(r"^WORKDIR\s+(\S+)", final, re.M)
    expose = re.findall(r"^EXPOSE\s+(\d+)", final, re.M)
    listen = re.findall(r"^ENV\s+GPUMARKET_LISTEN=\S+:(\d+)", final, re.M)
    return {
        "user": user[-1] if user else None,
        "writable": {workdir[-1] if workdir else "/", "/tmp"},
        "port": int(expose[-1]) if expose else None,
        "listen_port": int(listen[-1]) if listen else None,
    }


def port_of(address):
    return int(address.rsplit(":", 1)[1])


def check(dockerfile, rendered):
    image = dockerfile_facts(dockerfile)
    problems = []
    if image["user"] is None or not image["user"].isdigit():
        problems.append(f"Dockerfile: USER must be numeric, is {image['user']!r}")
    if image["port"] != image["listen_port"]:
        problems.append(f"Dockerfile: EXPOSE {image['port']} but GPUMARKET_LISTEN's port is {image['listen_port']}")
    for path in rendered:
        objects = [o for o in yaml.safe_load_all(open(path)) if o]
        settings = {}
        for o in objects:
            if o["kind"] == "ConfigMap" and o["metadata"]["name"].startswith("gpumarket-settings"):
                settings = o["data"]
        for key, port in [("GPUMARKET_LISTEN", image["port"]), ("GPUMARKET_WORKER_LISTEN", None)]:
            if key not in settings:
                problems.append(f"{path}: the settings lack {key}")
            elif port is not None and port_of(settings[key]) != port:
                problems.append(f"{path}: {key} listens on {port_of(settings[key])}, the image exposes {port}")
        ports = {"api": port_of(settings.get("GPUMARKET_LISTEN", ":0")),
                 "worker": port_of(settings.get("GPUMARKET_WORKER_LISTEN", ":0"))}
        for o in objects:
            if o["kind"] not in ("Deployment", "Job", "StatefulSet"):
                continue
            pod = o["spec"]["template"]["spec"]
            name = f"{path}: {o['kind']} {o['metadata']['name']}"
            volumes = {v["name"]: v for v in pod.get("volumes", [])}
            for c in pod.get("initContainers", []) + pod["containers"]:
                if not c["image"].split("/")[-1].startswith("gpumarket"):
                    continue
                where = f"{name}, container {c['name']}"
                security = {**pod.get("securityContext", {}), **c.get("securityContext", {})}
                if str(security.get("runAsUser")) != str(image["user"]):
                    problems.append(f"{where}: runAsUser {security.get('runAsUser')}, the image's USER is {image['user']}")
                if security.get("runAsNonRoot") is not True:
                    problems.append(f"{where}: runAsNonRoot is not true")
                if security.get("readOnlyRootFilesystem") is not True:
                    problems.append(f"{where}: the root filesystem is not read-only")
                mounted = {m["mountPath"] for m in c.get("volumeMounts", [])
                           if "emptyDir" in volumes.get(m["name"], {})}
                for missing in sorted(image["writable"] - mounted):
                    problems.append(f"{where}: no emptyDir at {missing}, which the process writes")
                component = o["metadata"].get("labels", {}).get("app.kubernetes.io/component")
                if c in pod["containers"] and component in ports:
                    declared = [p["containerPort"] for p in c.get("ports", [])]
                    if declared != [ports[component]]:
                        problems.append(f"{where}: container ports {declared}, its settings listen on {ports[component]}")
    return problems


if __name__ == "__main__":
    problems = check(sys.argv[1], sys.argv[2:])
    for p in problems:
        print(p, file=sys.stderr)
    sys.exit(1 if problems else 0)
