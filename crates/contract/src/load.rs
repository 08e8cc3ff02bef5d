//! Reading a schema set: one file per type, method, event or envelope part,
//! in a folder named for its kind.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::Error;

/// What a schema file defines; told by the folder it sits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DocKind {
    /// `types/`: a named type, the file's root is its schema.
    Type,
    /// `methods/`: a method; `$defs/params` and `$defs/result` are its shapes.
    Method,
    /// `events/`: an event; `$defs/params` is its shape.
    Event,
    /// `envelope/`: the envelope and the parts it is made of.
    Envelope,
    /// `config/`: a file an operator writes (not carried on the wire).
    Config,
}

impl DocKind {
    /// The folder a kind lives in.
    pub fn folder(self) -> &'static str {
        match self {
            DocKind::Type => "types",
            DocKind::Method => "methods",
            DocKind::Event => "events",
            DocKind::Envelope => "envelope",
            DocKind::Config => "config",
        }
    }

    fn from_folder(folder: &str) -> Option<Self> {
        [
            DocKind::Type,
            DocKind::Method,
            DocKind::Event,
            DocKind::Envelope,
            DocKind::Config,
        ]
        .into_iter()
        .find(|kind| kind.folder() == folder)
    }
}

/// One schema file.
#[derive(Clone, Debug)]
pub struct SchemaDoc {
    /// The path inside the set, with `/` separators (`types/TaskId.json`).
    pub rel: String,
    /// What the file defines, from its folder.
    pub kind: DocKind,
    /// The file's stem: the type, method or event name.
    pub name: String,
    /// The schema; `true` for a document kept as [`SchemaDoc::too_deep`].
    pub value: Value,
    /// Set when the document nests past [`crate::MAX_JSON_DEPTH`] and was
    /// read as that fact alone (see [`DeepDocuments::Keep`]).
    pub too_deep: Option<crate::TooDeep>,
}

/// What loading does with a document nested past [`crate::MAX_JSON_DEPTH`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeepDocuments {
    /// An error naming the file and the place (every tool but compat).
    Refuse,
    /// A document whose [`SchemaDoc::too_deep`] says so: the compatibility
    /// checker reads it and answers "cannot decide" where it matters.
    Keep,
}

impl SchemaDoc {
    /// The document's `$id`, when it has a string one.
    pub fn id(&self) -> Option<&str> {
        self.value.get("$id").and_then(Value::as_str)
    }

    /// The `$id` a file at this place must have.
    pub fn expected_id(&self) -> String {
        format!("{}{}", crate::ID_BASE, self.rel)
    }

    /// An annotation of the document's root (`x-since`, `x-transports`, ...).
    pub fn annotation(&self, key: &str) -> Option<&Value> {
        self.value.get(key)
    }

    /// The named schemas this file holds, as `(name, pointer, schema)`: the
    /// file itself for a type, envelope part or config file; each titled
    /// shape under `$defs` (`DownloadAddParams`, ...) for a method or event.
    pub fn named_places(&self) -> Vec<(String, String, &Value)> {
        match self.kind {
            DocKind::Method | DocKind::Event => self
                .value
                .get("$defs")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .filter_map(|(shape, schema)| {
                    let title = schema.get("title").and_then(Value::as_str)?;
                    Some((title.to_string(), format!("/$defs/{shape}"), schema))
                })
                .collect(),
            _ => vec![(self.name.clone(), String::new(), &self.value)],
        }
    }

    /// For methods: the transports it may be carried on.
    pub fn transports(&self) -> Vec<&str> {
        // No `x-transports`: empty, which callers read as "any".
        self.annotation("x-transports")
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }
}

/// A loaded schema set, sorted by path so every walk over it is deterministic.
#[derive(Clone, Debug)]
pub struct SchemaSet {
    /// Where the set came from, for messages (a folder, or `<embedded>`).
    pub origin: PathBuf,
    /// Every file, by path.
    pub docs: Vec<SchemaDoc>,
}

impl SchemaSet {
    /// Loads every `*.json` file below `dir`.
    pub fn load(dir: &Path) -> Result<Self, Error> {
        Self::load_with(dir, DeepDocuments::Refuse)
    }

    /// [`SchemaSet::load`], choosing what becomes of over-deep documents.
    pub fn load_with(dir: &Path, deep: DeepDocuments) -> Result<Self, Error> {
        let mut files = Vec::new();
        collect(dir, &mut files)?;
        // In path order, so the first bad file named is the same on every
        // machine.
        files.sort();
        let mut texts = Vec::with_capacity(files.len());
        for (rel, path) in files {
            let bytes = read_file(&path)?;
            texts.push((rel, bytes));
        }
        Self::from_bytes_with(
            dir,
            texts
                .iter()
                .map(|(rel, bytes)| (rel.as_str(), bytes.as_slice())),
            deep,
        )
    }

    /// [`SchemaSet::from_texts`] of files as read, bytes that may not be
    /// UTF-8: such a file is an error naming where its first bad byte is.
    pub fn from_bytes<'a>(
        origin: &Path,
        files: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    ) -> Result<Self, Error> {
        Self::from_bytes_with(origin, files, DeepDocuments::Refuse)
    }

    /// [`SchemaSet::from_bytes`], choosing what becomes of over-deep documents.
    pub fn from_bytes_with<'a>(
        origin: &Path,
        files: impl IntoIterator<Item = (&'a str, &'a [u8])>,
        deep: DeepDocuments,
    ) -> Result<Self, Error> {
        let texts = files
            .into_iter()
            .map(|(rel, bytes)| Ok((rel, utf8(&origin.join(rel), bytes)?)))
            .collect::<Result<Vec<_>, Error>>()?;
        Self::from_texts_with(origin, texts, deep)
    }

    /// Builds a set from `(relative path, JSON text)` pairs, such as schemas
    /// compiled into a binary.
    pub fn from_texts<'a>(
        origin: &Path,
        texts: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, Error> {
        Self::from_texts_with(origin, texts, DeepDocuments::Refuse)
    }

    /// [`SchemaSet::from_texts`], choosing what becomes of over-deep documents.
    pub fn from_texts_with<'a>(
        origin: &Path,
        texts: impl IntoIterator<Item = (&'a str, &'a str)>,
        deep: DeepDocuments,
    ) -> Result<Self, Error> {
        let mut docs = Vec::new();
        for (rel, text) in texts {
            let path = origin.join(rel);
            let read = crate::read_json(text).map_err(|why| Error::Json {
                path: path.clone(),
                why,
            })?;
            let (value, too_deep) = match (read, deep) {
                (Ok(value), _) => (value, None),
                (Err(found), DeepDocuments::Keep) => (Value::Bool(true), Some(found)),
                (Err(found), DeepDocuments::Refuse) => {
                    return Err(Error::TooDeep {
                        path,
                        depth: found.depth,
                        pointer: found.pointer,
                    })
                }
            };
            let (folder, file) = rel.split_once('/').ok_or_else(|| Error::Layout {
                path: path.clone(),
                message: "a schema file must sit in a folder named for its kind \
                          (types, methods, events, envelope, config)"
                    .into(),
            })?;
            let kind = DocKind::from_folder(folder).ok_or_else(|| Error::Layout {
                path: path.clone(),
                message: format!(
                    "unknown folder {folder:?}: use types, methods, events, envelope or config"
                ),
            })?;
            let name = file
                .strip_suffix(".json")
                .filter(|stem| !stem.is_empty() && !stem.contains('/'))
                .ok_or_else(|| Error::Layout {
                    path: path.clone(),
                    message: "a schema file is `<folder>/<Name>.json`, one level deep".into(),
                })?;
            docs.push(SchemaDoc {
                rel: rel.to_string(),
                kind,
                name: name.to_string(),
                value,
                too_deep,
            });
        }
        docs.sort_by(|a, b| a.rel.cmp(&b.rel));
        Ok(Self {
            origin: origin.to_path_buf(),
            docs,
        })
    }

    /// The document with this `$id`.
    pub fn by_id(&self, id: &str) -> Option<&SchemaDoc> {
        self.docs.iter().find(|doc| doc.id() == Some(id))
    }

    /// The document of this kind and name.
    pub fn get(&self, kind: DocKind, name: &str) -> Option<&SchemaDoc> {
        self.docs
            .iter()
            .find(|doc| doc.kind == kind && doc.name == name)
    }

    /// The documents of one kind, in path order.
    pub fn of_kind(&self, kind: DocKind) -> impl Iterator<Item = &SchemaDoc> {
        self.docs.iter().filter(move |doc| doc.kind == kind)
    }

    /// A `jsonschema` registry holding every document under its `$id`, so a
    /// validator resolves every reference from memory and never from a network.
    pub fn registry(&self) -> Result<jsonschema::Registry<'static>, Error> {
        let pairs: Vec<(String, Value)> = self
            .docs
            .iter()
            .filter_map(|doc| doc.id().map(|id| (id.to_string(), doc.value.clone())))
            .collect();
        jsonschema::Registry::new()
            .extend(pairs)
            .and_then(|builder| builder.prepare())
            .map_err(|err| Error::Registry(err.to_string()))
    }

    /// The path of a document for messages: the set's origin joined with its
    /// relative path.
    pub fn display_path(&self, doc: &SchemaDoc) -> PathBuf {
        self.origin.join(&doc.rel)
    }
}

/// The largest file read whole (a schema, a transitions table, a header):
/// far above any written by hand, and a bound on what a wrong path costs
/// before it is refused.
pub const MAX_FILE: u64 = 16 << 20;

/// The bytes of the file at `path`, up to [`MAX_FILE`]; a larger one is
/// [`Error::TooLarge`], found after reading one byte past the bound.
pub fn read_file(path: &Path) -> Result<Vec<u8>, Error> {
    let file = std::fs::File::open(path).map_err(|why| Error::Io {
        path: path.to_path_buf(),
        why,
    })?;
    read_bounded(file, path)
}

/// [`read_file`] of an open reader (stdin), `path` naming it in errors.
pub fn read_bounded(from: impl std::io::Read, path: &Path) -> Result<Vec<u8>, Error> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    from.take(MAX_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|why| Error::Io {
            path: path.to_path_buf(),
            why,
        })?;
    if bytes.len() as u64 > MAX_FILE {
        return Err(Error::TooLarge {
            path: path.to_path_buf(),
        });
    }
    Ok(bytes)
}

/// `bytes` as text, or where in `path` the first byte that is not UTF-8 is
/// ([`Error::NotUtf8`]: line, column and offset).
pub fn utf8<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a str, Error> {
    std::str::from_utf8(bytes).map_err(|err| {
        let offset = err.valid_up_to();
        // Everything before `offset` is UTF-8, so this cannot fail.
        let before = std::str::from_utf8(bytes.get(..offset).unwrap_or_default()).unwrap_or("");
        let line_start = before.rfind('\n').map_or(0, |at| at + 1);
        Error::NotUtf8 {
            // UTF-32's little-endian mark starts as UTF-16's does.
            marked: match bytes {
                [0xFF, 0xFE, 0, 0, ..] | [0, 0, 0xFE, 0xFF, ..] => Some("UTF-32"),
                [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..] => Some("UTF-16"),
                _ => None,
            },
            path: path.to_path_buf(),
            line: before.matches('\n').count() + 1,
            column: before.get(line_start..).unwrap_or("").chars().count() + 1,
            offset,
        }
    })
}

/// Every `.json` file under `root`, its path relative to `root`. Links to
/// folders are followed (a lane may link in a shared folder), each real
/// folder once: one met again, through a link back up or a second link to
/// it, is an error, so the walk always ends.
fn collect(root: &Path, out: &mut Vec<(String, PathBuf)>) -> Result<(), Error> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |why| Error::Io { path, why }
    };
    let mut walked = std::collections::HashSet::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        if !walked.insert(std::fs::canonicalize(&dir).map_err(io(&dir))?) {
            return Err(Error::Layout {
                path: dir,
                message: "a folder already read, reached again through a symbolic link".into(),
            });
        }
        let entries = std::fs::read_dir(&dir).map_err(io(&dir))?;
        for entry in entries {
            let path = entry.map_err(io(&dir))?.path();
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if crate::plain(&name) != name {
                // Every message names its file: this one would start a line
                // of its own in a log, or show another text than it holds.
                return Err(Error::Layout {
                    path: dir,
                    message: format!(
                        "holds {}, a name with a control or line-breaking character, which no message could show as it is; rename it",
                        crate::quoted(&name)
                    ),
                });
            }
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "json") {
                // A FIFO or a device would block or never end a read.
                if !path.is_file() && path.exists() {
                    return Err(Error::Layout {
                        path,
                        message: "not a regular file".into(),
                    });
                }
                let rel = path
                    .strip_prefix(root)
                    .unwrap_or(&path)
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push((rel, path));
            }
        }
    }
    Ok(())
}
