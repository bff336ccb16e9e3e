//! `[[code_object]]`: the kernels each code object registers, by alias, on its device. An
//! alias may be loaded on several devices, once on each.
use super::raw::RawCodeObject;
use super::Validator;
use crate::scenario::error::ScenarioError;
use crate::scenario::model::CodeObjectSpec;
use toml::Spanned;

impl Validator<'_> {
    pub(super) fn load_code_objects(
        &mut self,
        raw: &[Spanned<RawCodeObject>],
    ) -> Result<(), ScenarioError> {
        for co in raw {
            let device = self.device(co.get_ref().device.as_ref())?;
            let mut kernels = Vec::new();
            for (alias, symbol) in &co.get_ref().kernels {
                if symbol.get_ref().is_empty() || symbol.get_ref().contains('\0') {
                    return Err(self.at.error(
                        symbol.span(),
                        "kernel symbol must be a non-empty string without NUL",
                    ));
                }
                let devices = self.kernels.entry(alias.get_ref().clone()).or_default();
                if !devices.insert(device) {
                    return Err(self.at.error(
                        alias.span(),
                        format!(
                            "kernel `{}` is already loaded on device {device}",
                            alias.get_ref()
                        ),
                    ));
                }
                kernels.push((alias.get_ref().clone(), symbol.get_ref().clone()));
            }
            self.code_objects.push(CodeObjectSpec { device, kernels });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parsed, refused, with_steps};

    const TWO_GPUS: &str = "[machine]\ngpus = 2\n";

    #[test]
    fn code_objects_load_in_file_order_on_their_devices() {
        let s = parsed(&with_steps(
            &format!(
                "{TWO_GPUS}[[code_object]]\nkernels = {{ k = \"_Z1kv\", m = \"m\" }}\n\
                 [[code_object]]\ndevice = 1\nkernels = {{ k = \"_Z1kv\" }}"
            ),
            "{ launch = \"k\" }",
        ));
        assert_eq!(s.code_objects.len(), 2);
        assert_eq!(s.code_objects[0].device, 0);
        assert_eq!(
            s.code_objects[0].kernels,
            [
                ("k".to_owned(), "_Z1kv".to_owned()),
                ("m".to_owned(), "m".to_owned())
            ]
        );
        assert_eq!(s.code_objects[1].device, 1);
    }

    #[test]
    fn an_alias_loads_once_per_device() {
        let message = refused(&with_steps(
            "[[code_object]]\nkernels = { k = \"a\" }\n[[code_object]]\nkernels = { k = \"b\" }",
            "{ launch = \"k\" }",
        ));
        assert_eq!(message, "4:13: kernel `k` is already loaded on device 0");
    }

    #[test]
    fn a_symbol_is_a_non_empty_c_string() {
        for symbol in ["\"\"", "\"a\\u0000b\""] {
            let message = refused(&with_steps(
                &format!("[[code_object]]\nkernels = {{ k = {symbol} }}"),
                "{ launch = \"k\" }",
            ));
            assert_eq!(
                message,
                "2:17: kernel symbol must be a non-empty string without NUL"
            );
        }
    }

    #[test]
    fn the_device_must_exist() {
        let message = refused(&with_steps(
            "[[code_object]]\ndevice = 1\nkernels = { k = \"a\" }",
            "{ sync_device = true }",
        ));
        assert!(
            message.starts_with("2:10: device 1 does not exist"),
            "{message}"
        );
    }
}
