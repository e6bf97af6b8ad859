"""Course gradebook: weighted components, late penalties, grade schemes."""

__version__ = "3.2.0"
