#!/usr/bin/env bash
# Installs kgo's system and Python dependencies on a Debian/Ubuntu machine.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential cmake pkg-config git python3 python3-pip \
  libgit2-dev nlohmann-json3-dev libcli11-dev libfmt-dev libgtest-dev googletest >/dev/null
# Tests only, so that the README's test command runs every test on a fresh machine: the report's SVG charts are
# rendered with rsvg-convert and its HTML page is screenshotted in headless Chromium (tests/cli/test_report.py);
# tests/cli/test_sweep.py starts a single-node Slurm cluster (munged, slurmctld, slurmd) on localhost; bubblewrap
# (bwrap) is the sandbox the harness's kernel process is to run in.
$SUDO apt-get install -y -qq --no-install-recommends librsvg2-bin chromium slurm-wlm munge bubblewrap >/dev/null
python3 -m pip install -q -r "$here/tools/requirements.txt"
