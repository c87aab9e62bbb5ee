"""What to say when an optional dependency (an extra) is missing."""


def missing_extra(error: ModuleNotFoundError, what: str, extra: str, modules: tuple) -> None:
    """Re-raises ``error`` naming the extra that installs the missing module
    when it is one of ``modules``; any other missing module as it is."""
    if error.name not in modules:
        raise error
    raise ModuleNotFoundError(
        f'{what} needs {error.name}, the "{extra}" extra: pip install "./python[{extra}]" '
        "from the repository's root",
        name=error.name,
    ) from error
