"""The `npusim` command line: one module per subcommand, registered in main.SUBCOMMANDS."""
