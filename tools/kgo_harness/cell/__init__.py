"""The kernel's cell: the only code that runs in a kernel process (it imports the kernel under test).
It imports nothing of the judge's (tools/tests/test_roles.py)."""
