"""The planted-source eval: how many planted sources the trust layer lets into an agent context."""
