// The choice of links without the file extension (x-service-extensionless) for the upload page and the uploader
// files: it shows the server's setting (filesExtensionlessUrls) until someone chooses otherwise, and a choice equal
// to that setting is no choice (null), so the uploads keep following the setting when an admin changes it.
import { Switch, type SwitchProps } from '@mantine/core';

type Props = Omit<SwitchProps, 'checked' | 'onChange' | 'label' | 'value'> & {
  /** The choice made, or null to leave it to the server. */
  value: boolean | null;
  /** The server's setting. */
  serverDefault: boolean;
  onChange: (value: boolean | null) => void;
};

export function ExtensionlessLinksSwitch({ value, serverDefault, onChange, ...props }: Props) {
  return (
    <Switch
      {...props}
      label="Links without the extension"
      checked={value ?? serverDefault}
      onChange={(event) => {
        const checked = event.currentTarget.checked;
        onChange(checked === serverDefault ? null : checked);
      }}
    />
  );
}
