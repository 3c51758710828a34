"""Schemas: everything that crosses a package boundary or reaches disk (msgspec Structs, but
for the hook event, a plain class the pre-tool hook builds without msgspec). Each is imported
from its module (`continuity_core.schemas.session`, ...)."""
