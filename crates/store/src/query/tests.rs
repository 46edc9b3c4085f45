use super::{marks, Dialect};

#[test]
fn placeholders_are_numbered_for_postgres_and_left_for_sqlite() {
    let sql = "SELECT a FROM t WHERE x = ? AND y IN (?, ?) AND z = '?'";
    assert_eq!(Dialect::Sqlite.render(sql), sql);
    assert_eq!(
        Dialect::Postgres.render(sql),
        "SELECT a FROM t WHERE x = $1 AND y IN ($2, $3) AND z = '?'"
    );
    assert_eq!(
        Dialect::Postgres.render("substr(p, 1, ?2) WHERE id = ?1 OR ?12"),
        "substr(p, 1, $2) WHERE id = $1 OR $12"
    );
    assert_eq!(Dialect::Postgres.render(&marks(3)), "($1, $2, $3)");
}

#[test]
fn one_placeholder_per_sample_column() {
    assert_eq!(
        marks(crate::SAMPLE_COLUMN_COUNT).matches('?').count(),
        crate::schema::SAMPLE_COLUMNS.split(',').count()
    );
}
