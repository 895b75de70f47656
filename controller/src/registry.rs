//! The controller's own record of the jobs it admitted, in a redb file
//! (`esa controller --state FILE`): written in one transaction at every
//! admission and release, read back when the controller starts. It is what
//! the controller restores when it becomes primary again — after it
//! restarted, or after another client took the switch over and changed
//! it — so the switch's contents never decide which jobs exist.
//!
//! Each job is kept as its entities in P4Runtime form (one encoded
//! `ReadResponse` per job), the same form the controller reads from a
//! switch, so loading goes through [`JobTable::rebuild`] like adopting
//! does. The pipeline's cookie is kept beside them: a record made for
//! another pipeline (other ids) is refused, not misread.

use std::path::{Path, PathBuf};

use p4runtime_proto::p4::v1 as p4v1;
use prost::Message;
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};

use crate::entries::Entity;
use crate::error::Error;
use crate::jobs::JobTable;
use crate::pipeline::Pipeline;

/// Job id → its entities, an encoded `p4.v1.ReadResponse`.
const JOBS: TableDefinition<u32, &[u8]> = TableDefinition::new("jobs");
/// `"cookie"` → the pipeline's cookie the jobs were made for.
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
/// Job id → the tenant that admitted it (job API tokens).
const OWNERS: TableDefinition<u32, &str> = TableDefinition::new("owners");

/// Job id → the tenant that admitted it.
pub type Owners = std::collections::BTreeMap<u16, String>;

/// The job record on disk.
#[derive(Debug)]
pub struct Registry {
    db: Database,
    path: PathBuf,
}

fn failed(path: &Path, what: &str, e: impl std::fmt::Display) -> Error {
    Error::Registry(format!("{}: {what}: {e}", path.display()))
}

impl Registry {
    /// Opens the record at `path`, creating it if it does not exist.
    pub fn open(path: &Path) -> Result<Registry, Error> {
        let db = Database::create(path).map_err(|e| failed(path, "opening", e))?;
        Ok(Registry {
            db,
            path: path.to_path_buf(),
        })
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The recorded jobs, as a table of `pool_slots` slots, and their
    /// tenants; `None` when nothing was ever recorded. An error when the
    /// record was made for another pipeline or does not decode.
    pub fn load(
        &self,
        pipeline: &Pipeline,
        pool_slots: u32,
    ) -> Result<Option<(JobTable, Owners)>, Error> {
        let path = &self.path;
        let read = self
            .db
            .begin_read()
            .map_err(|e| failed(path, "reading", e))?;
        let meta = match read.open_table(META) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(failed(path, "reading", e)),
        };
        let cookie = meta
            .get("cookie")
            .map_err(|e| failed(path, "reading", e))?
            .map(|v| v.value());
        let Some(cookie) = cookie else {
            return Ok(None);
        };
        if cookie != pipeline.cookie {
            return Err(Error::Registry(format!(
                "{}: its jobs were admitted for another pipeline (cookie {cookie:#x}, this one's \
                 is {:#x}); release them there, or move the file aside to start with none",
                path.display(),
                pipeline.cookie
            )));
        }
        let jobs = read
            .open_table(JOBS)
            .map_err(|e| failed(path, "reading", e))?;
        let mut entities = Vec::new();
        for row in jobs.iter().map_err(|e| failed(path, "reading", e))? {
            let (id, bytes) = row.map_err(|e| failed(path, "reading", e))?;
            let id = id.value();
            let decoded = p4v1::ReadResponse::decode(bytes.value())
                .map_err(|e| failed(path, &format!("job {id}"), e))?;
            for e in &decoded.entities {
                match Entity::from_proto(e, &pipeline.bindings) {
                    Ok(Some(entity)) => entities.push(entity),
                    Ok(None) => {}
                    Err(e) => return Err(failed(path, &format!("job {id}"), e)),
                }
            }
        }
        let (table, problems) = JobTable::rebuild(pool_slots, &entities);
        if let Some(p) = problems.first() {
            return Err(failed(path, "rebuilding its jobs", p));
        }
        let mut owners = Owners::new();
        match read.open_table(OWNERS) {
            Ok(t) => {
                for row in t.iter().map_err(|e| failed(path, "reading", e))? {
                    let (id, tenant) = row.map_err(|e| failed(path, "reading", e))?;
                    if let Ok(id) = u16::try_from(id.value()) {
                        owners.insert(id, tenant.value().to_string());
                    }
                }
            }
            Err(redb::TableError::TableDoesNotExist(_)) => {}
            Err(e) => return Err(failed(path, "reading", e)),
        }
        Ok(Some((table, owners)))
    }

    /// Replaces the record with `jobs` and the tenants of those among them
    /// in `owners`, in one transaction: after a crash the file holds
    /// either the old record or the new one.
    pub fn save(&self, pipeline: &Pipeline, jobs: &JobTable, owners: &Owners) -> Result<(), Error> {
        let path = &self.path;
        let write = self
            .db
            .begin_write()
            .map_err(|e| failed(path, "writing", e))?;
        {
            let mut meta = write
                .open_table(META)
                .map_err(|e| failed(path, "writing", e))?;
            meta.insert("cookie", pipeline.cookie)
                .map_err(|e| failed(path, "writing", e))?;
            let mut table = write
                .open_table(JOBS)
                .map_err(|e| failed(path, "writing", e))?;
            table
                .retain(|_, _| false)
                .map_err(|e| failed(path, "writing", e))?;
            let arch = pipeline.bindings.arch;
            for (&id, job) in jobs.jobs() {
                let encoded = p4v1::ReadResponse {
                    entities: job
                        .entities(arch)
                        .iter()
                        .map(|e| e.to_proto(&pipeline.bindings))
                        .collect(),
                }
                .encode_to_vec();
                table
                    .insert(u32::from(id), encoded.as_slice())
                    .map_err(|e| failed(path, "writing", e))?;
            }
            let mut tenants = write
                .open_table(OWNERS)
                .map_err(|e| failed(path, "writing", e))?;
            tenants
                .retain(|_, _| false)
                .map_err(|e| failed(path, "writing", e))?;
            for (id, tenant) in owners.iter().filter(|(id, _)| jobs.get(**id).is_some()) {
                tenants
                    .insert(u32::from(*id), tenant.as_str())
                    .map_err(|e| failed(path, "writing", e))?;
            }
        }
        write.commit().map_err(|e| failed(path, "writing", e))
    }
}
