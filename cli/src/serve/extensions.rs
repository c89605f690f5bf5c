//! What the handler (both eras) serves of the extensions, in rmcp's types:
//! the skills' files and the app's resource beside the catalogue's
//! resources, the dashboard tool beside the built-in tools, and the skills
//! extension in the capabilities. `skills`, `apps` and `tasks` hold the
//! data; docs/extensions.md describes it.

use rmcp::model::{ResourceContents, ServerCapabilities, Tool};
use serde_json::Value;

use super::apps::App;
use super::faults::{Fault, FaultSet};
use super::skills::{self, Catalogue};

fn typed<T: serde::de::DeserializeOwned>(value: Value) -> Option<T> {
    serde_json::from_value(value).ok()
}

/// The tools of the extensions every era lists: the dashboard.
pub fn tools(faults: &FaultSet) -> Vec<Tool> {
    typed(App::new(faults).tool()).into_iter().collect()
}

/// The resources of the extensions, after the catalogue's: each skill's
/// SKILL.md, then the app's view.
pub fn resources(faults: &FaultSet) -> Vec<rmcp::model::Resource> {
    let mut listed = Catalogue::new(faults).resources();
    listed.push(App::new(faults).resource());
    listed.into_iter().filter_map(typed).collect()
}

/// The contents of an extension's resource.
pub fn read(faults: &FaultSet, uri: &str) -> Option<ResourceContents> {
    let contents = App::new(faults)
        .read(uri)
        .or_else(|| Catalogue::new(faults).read(uri))?;
    typed(contents)
}

/// Whether `uri` is a resource of an extension.
pub fn exists(faults: &FaultSet, uri: &str) -> bool {
    read(faults, uri).is_some()
}

/// Declares the skills extension, with `directoryRead`; the
/// `skills-without-resources` fault takes the resources capability away.
pub fn declare(capabilities: &mut ServerCapabilities, faults: &FaultSet) {
    capabilities
        .extensions
        .get_or_insert_with(Default::default)
        .insert(skills::EXTENSION.to_owned(), skills::settings());
    if faults.has(Fault::SkillsWithoutResources) {
        capabilities.resources = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_resource_reads_and_converts() {
        let faults = FaultSet::default();
        let listed = resources(&faults);
        assert_eq!(listed.len(), 3);
        for resource in listed {
            assert!(read(&faults, &resource.uri).is_some(), "{}", resource.uri);
        }
        assert_eq!(tools(&faults).len(), 1);
        assert!(!exists(&faults, "ui://mcpcheck/none.html"));
    }
}
