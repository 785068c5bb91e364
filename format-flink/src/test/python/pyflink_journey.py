"""A PyFlink SQL session over the Quiver bundle jar (run by format-flink's PyFlinkIT).

Usage: pyflink_journey.py <bundle.jar> <warehouse-dir>

Appends through 'connector' = 'quiver', reads them back filtered, upserts through a table with a primary key,
travels in time, then creates a Quiver catalog, a database and a keyed table in it and upserts into that, and
checks every row; prints "pyflink journey ok" and exits 0 when all is as expected.
"""
import sys

from pyflink.table import EnvironmentSettings, TableEnvironment


def rows(t_env, sql):
    with t_env.execute_sql(sql).collect() as results:
        return [tuple(r) for r in results]


def expect(what, got, want):
    print(f"{what}: {got}")
    if got != want:
        print(f"FAILED {what}: expected {want}, got {got}")
        sys.exit(1)


def main():
    bundle, root = sys.argv[1], sys.argv[2]
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("pipeline.jars", "file://" + bundle)
    t_env.get_config().set("parallelism.default", "1")

    t_env.execute_sql(
        f"CREATE TABLE t (id BIGINT, name STRING, score DOUBLE) WITH ('connector' = 'quiver', 'path' = '{root}/t')")
    t_env.execute_sql("INSERT INTO t VALUES (1, 'a', 0.5), (2, 'b', 1.5), (3, 'c', 2.5)").wait()
    expect("filtered", rows(t_env, "SELECT id, name, score FROM t WHERE id >= 2 ORDER BY id"),
           [(2, "b", 1.5), (3, "c", 2.5)])
    expect("count", rows(t_env, "SELECT COUNT(*) FROM t"), [(3,)])

    t_env.execute_sql(
        "CREATE TABLE u (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)"
        f" WITH ('connector' = 'quiver', 'path' = '{root}/u')")
    t_env.execute_sql("INSERT INTO u VALUES (1, 'a'), (2, 'b')").wait()
    t_env.execute_sql("INSERT INTO u VALUES (2, 'B'), (3, 'c')").wait()
    expect("upserted", rows(t_env, "SELECT id, name FROM u ORDER BY id"), [(1, "a"), (2, "B"), (3, "c")])

    # Time travel: version 1 is the empty table the first INSERT created, version 2 its commit.
    expect("version 1", rows(t_env, "SELECT id, name FROM u /*+ OPTIONS('scan.version'='1') */"), [])
    expect("version 2", rows(t_env, "SELECT id, name FROM u /*+ OPTIONS('scan.version'='2') */ ORDER BY id"),
           [(1, "a"), (2, "b")])

    # The catalog: databases as prefixes of the warehouse, the key and options stored in the table.
    t_env.execute_sql(f"CREATE CATALOG q WITH ('type' = 'quiver', 'warehouse' = '{root}/warehouse')")
    t_env.execute_sql("USE CATALOG q")
    t_env.execute_sql("CREATE DATABASE sales")
    t_env.execute_sql("CREATE TABLE sales.orders (id BIGINT NOT NULL, amount INT, PRIMARY KEY (id) NOT ENFORCED)")
    t_env.execute_sql("INSERT INTO sales.orders VALUES (1, 10), (2, 20)").wait()
    t_env.execute_sql("INSERT INTO sales.orders VALUES (2, 25), (3, 30)").wait()
    expect("catalog tables", rows(t_env, "SHOW TABLES IN sales"), [("orders",)])
    expect("catalog upserted", rows(t_env, "SELECT id, amount FROM sales.orders ORDER BY id"),
           [(1, 10), (2, 25), (3, 30)])
    print("pyflink journey ok")


if __name__ == "__main__":
    main()
