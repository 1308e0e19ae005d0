/** A metav1.Condition, as bindings, Works and Clusters carry them; shared by the core and the scheduler. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}
