"""`npusim` itself: command-line mistakes argparse catches are one `npusim: error:` line, exit 2."""

import pytest

from npusim.cli.main import SUBCOMMANDS, main


@pytest.mark.parametrize("argv, message", [
    ([], "npusim: error: the following arguments are required: COMMAND; see 'npusim --help'"),
    (["bogus"], "npusim: error: argument COMMAND: invalid choice: 'bogus'"),
    (["sim"], "npusim: error: sim: the following arguments are required: PROG; "
              "see 'npusim sim --help'"),
    (["sim", "p.bin", "--max-cycles", "0"],
     "npusim: error: sim: argument --max-cycles: must be >= 1, got 0"),
    (["asm", "p.s", "--bogus"], "npusim: error: unrecognized arguments: --bogus"),
    (["disasm"], "npusim: error: disasm: the following arguments are required: PROG.bin"),
])
def test_usage_mistakes_are_one_line(capsys, argv, message):
    with pytest.raises(SystemExit) as e:
        main(argv)
    out, err = capsys.readouterr()
    assert e.value.code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1, err


@pytest.mark.parametrize("command", sorted(SUBCOMMANDS))
def test_every_subcommand_has_help(capsys, command):
    with pytest.raises(SystemExit) as e:
        main([command, "--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0 and out.startswith(f"usage: npusim {command}")
