// The state of a short-link form (shorten, edit): each field's own error, and the form's busy state and failure. A
// refusal of the server that concerns a field (a taken vanity, a bad destination) is shown under that field.
import { useState } from 'react';
import { useSubmit } from '../../lib/use-submit';
import { urlErrorMessage, urlFieldError, type UrlFieldErrors } from './url-api';

export function useUrlForm(onFieldRefused?: (field: keyof UrlFieldErrors) => void) {
  const [errors, setErrors] = useState<UrlFieldErrors>({});
  const submit = useSubmit((err) => {
    const field = urlFieldError(err);
    if (!field) return urlErrorMessage(err);
    setErrors({ [field.field]: field.message });
    onFieldRefused?.(field.field);
    return null;
  });
  return { ...submit, failure: submit.error, setFailure: submit.setError, errors, setErrors };
}
