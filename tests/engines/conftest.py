"""The engines' tests: one local Spark session per module that asks for it (test_engine_spark.py
and test_engine_spark_lenses.py, which xdist runs on different workers)."""

import pytest


@pytest.fixture(scope="module")
def spark():
    """local[2] bound to 127.0.0.1 with no UI, stopped with the module."""
    from tklscore.core.engines.spark_engine import spark_session

    session, _ = spark_session("local[2]", partitions=2)
    # tiny tables: compiling whole-stage code and re-planning adaptively cost more than they save
    session.conf.set("spark.sql.codegen.wholeStage", "false")
    session.conf.set("spark.sql.adaptive.enabled", "false")
    yield session
    session.stop()
