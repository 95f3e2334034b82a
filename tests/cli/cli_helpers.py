"""Helpers the CLI tests share: run `npusim` in-process, and the one-line error contract."""

from npusim.cli.main import main


def run(capsys, *argv):
    """-> (exit code, stdout, stderr) of `npusim *argv` (paths and numbers may be passed)."""
    code = main(list(map(str, argv)))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err):
    assert err.count("\n") == 1 and err.startswith("npusim: error: ") and "Traceback" not in err
    return err
