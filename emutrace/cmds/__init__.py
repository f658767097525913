"""The subcommands, one module each: `emutrace NAME ARGS...` runs NAME.main(ARGS)."""
