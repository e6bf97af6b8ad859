"""The workflow family: multi-step jobs against emulated cloud APIs, judged by final state."""
