"""Print a shell completion script for bench (bash or zsh), generated from the parser.

bench completion bash > ~/.local/share/bash-completion/completions/bench
bench completion zsh > "${fpath[1]}/_bench"
"""

from __future__ import annotations

import argparse

SHELLS = ("bash", "zsh")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")


def main(args: argparse.Namespace) -> int:
    import shtab

    from bench.cli import build_parser

    print(shtab.complete(build_parser(prog="bench"), shell=args.shell))
    return 0
