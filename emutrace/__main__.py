from emutrace.cli import entry

entry()
